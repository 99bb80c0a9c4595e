package exchange

import (
	"log/slog"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/panjf2000/gnet/v2"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/upstream"
)

// Conn is what an exchange needs of the client connection it answers,
// and all it may touch of the engine: the engine implements it, one value
// per exchange. Methods named "on the loop" run on the connection's event
// loop; the others may run on any goroutine.
type Conn interface {
	// Now is the coarse clock, in nanoseconds: the one the connection's
	// deadlines are kept in.
	Now() int64
	// AppendText appends the server's own answer of status with msg as
	// its text body (none for head), fields after its own, the Date
	// line, and the Connection field of an HTTP/1.x client (http10: 1.0)
	// after which the server closes or not.
	AppendText(dst []byte, status int, fields, msg string, head, http10, closing bool) []byte
	// Released, on the loop, hands the connection back once the
	// exchange's answer is written: the connection stops waiting for the
	// exchange, logs its request, and closes when closeConn is set or the
	// server drains, else serves the requests that came meanwhile.
	Released(c gnet.Conn, closeConn bool)
	// Log writes the access log line of the exchange's request: on the
	// loop on HTTP/1.1, from the exchange's goroutine on HTTP/2 (the
	// engine takes the loop's lock).
	Log()
	// Refused, on the loop, leaves the connection to a lingering read of
	// the unread bytes buffered once the loop answered the request
	// itself (Forward.refuse; answered: with status, to be counted): the
	// connection forgets the exchange.
	Refused(c gnet.Conn, status, unread int, answered bool) gnet.Action
	// Close closes the connection, on the loop.
	Close()
	// Panicked logs and counts a panic v recovered at the boundary at,
	// and closes the connection; TestPanic raises one where a test asks.
	Panicked(at Boundary, v any)
	TestPanic(at Boundary)
}

// Boundary is where an exchange recovers a panic (Conn.Panicked): nothing
// above these places would, and an unrecovered panic ends the process.
type Boundary uint8

const (
	AtForward  Boundary = iota // Forward.Run, Stream.Run: the exchange
	AtTunnel                   // a tunnel's goroutines
	AtCallback                 // an AsyncWrite callback, run on the loop (onLoop)
)

// Host is what every exchange of one server shares, made once by the
// engine.
type Host struct {
	Metrics Metrics
	Workers *fw.Workers
	Log     *slog.Logger
	// Stopping is closed when the engine stops: an exchange stops
	// waiting for callbacks a stopped engine never runs.
	Stopping <-chan struct{}
}

// Metrics are the server's counters that exchanges count in; the engine
// registers them (with its own) and fills this.
type Metrics struct {
	// Forwarded counts forwarded requests by status class (1xx..5xx) of
	// the upstream's answer, or the server's own 502/503/504.
	Forwarded [6]*metrics.Counter
	// Fallback counts forwards of fallback rules, by FallbackAnswered and
	// FallbackRelayed.
	Fallback [2]*metrics.Counter
	// Bodies counts request bodies, by BodyBuffered and BodyStreamed.
	Bodies [2]*metrics.Counter
	// The timeouts that close a forwarding connection: body_timeout,
	// body_min_rate, send_timeout, tunnel_idle_timeout.
	BodyTimeouts, BodyRateTimeouts, SendTimeouts, TunnelTimeouts *metrics.Counter
	// Duration is the time of forwarded requests.
	Duration *metrics.PrometheusHistogram
	// FieldsDropped counts upstream answer fields left out for bytes no
	// field may hold (relay.go).
	FieldsDropped *metrics.Counter
}

// Indexes of Metrics.Fallback.
const (
	FallbackAnswered = iota
	FallbackRelayed
)

// Indexes of Metrics.Bodies: read whole before the exchange started, or
// larger than request_buffer_bytes and passed on as it came.
const (
	BodyBuffered = iota
	BodyStreamed
)

// ServerMetrics are one upstream server's counters.
type ServerMetrics struct {
	OK, Failed, TimedOut *metrics.Counter
	// PoolFull counts requests answered 503 because no pooled
	// connection came free within pool_wait_timeout.
	PoolFull *metrics.Counter
	// ClientLimit counts requests answered 429 because their client
	// had max_conns_per_client exchanges running.
	ClientLimit *metrics.Counter
	// Stale counts pooled connections closed before reuse because bytes
	// or an end of stream came while they were idle.
	Stale *metrics.Counter
	Dur   *metrics.PrometheusHistogram
	// Srv is the server the health gauge reads: the latest of this group
	// and address (a reload may rebuild it).
	Srv atomic.Pointer[upstream.Server]
}

// Group is one upstream group as exchanges see it: its options with the
// defaults filled, its servers' metrics and the client slots of
// max_conns_per_client. An exchange keeps the group it started with, so
// that a reload replacing it does not move an exchange under way.
type Group struct {
	fw.Options
	Servers map[*upstream.Server]*ServerMetrics
	Slots   Slots
}

// Slots counts, per client address, the exchanges running
// (max_conns_per_client). Take counts one unless the client has its
// share running; Put gives it back. They run on the exchange's goroutine.
type Slots interface {
	Take(client netip.Addr) bool
	Put(client netip.Addr)
}

// Record is what the access log records of an exchange's answer.
type Record struct {
	Status         int
	Bytes          int64 // the answer's, head included
	BodyBytes      int64
	Upstream       string // the server asked
	UpstreamStatus int
	UpstreamTime   time.Duration
	Start          time.Time
	Rule           string // an answered fallback rule's source
	Location       []byte // and its Location
}
