package engine

import (
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/engine/forward/exchange"
	"github.com/redirectd/redirectd/engine/promtext"
	"github.com/redirectd/redirectd/engine/upstream"
)

// serverMetrics are the server's counters, created once so that counting
// on the hot path is an array index and an atomic add: no label
// formatting, no map lookup.
type serverMetrics struct {
	set *metrics.Set
	// ups holds each group's servers' metrics by group and address,
	// made when a group is (forServer, under upMu).
	upMu sync.Mutex
	ups  map[string]*exchange.ServerMetrics
	// answered[outcome][status] counts local answers; nil where a status
	// never occurs for an outcome (answeredOther catches it).
	answered      [numOutcomes][600]*metrics.Counter
	answeredOther [numOutcomes]*metrics.Counter
	// forwarded counts forwarded requests by status class (1xx..5xx) of
	// the upstream's answer, or the proxy's own 502/504.
	forwarded [6]*metrics.Counter
	localDur  *metrics.PrometheusHistogram
	fwdDur    *metrics.PrometheusHistogram
	bytesIn   *metrics.Counter
	bytesOut  *metrics.Counter
	accepted  *metrics.Counter
	// h2conns counts TLS connections that negotiated HTTP/2, h2streams
	// the requests they carried.
	h2conns, h2streams *metrics.Counter
	rejected           [3]*metrics.Counter // by rejectReason
	// timeouts counts connections closed by each timeout; send is a
	// client that took nothing of a relayed answer for send_timeout,
	// tunnel a tunnel idle for tunnel_idle_timeout.
	// body_rate is a body larger than request_buffer_bytes that came
	// slower than body_min_rate.
	timeouts struct{ idle, header, linger, body, bodyRate, send, tunnel *metrics.Counter }
	// bodies counts forwarded request bodies: [exchange.BodyBuffered]
	// read whole before the exchange started, [exchange.BodyStreamed]
	// larger than request_buffer_bytes, passed on as they came once it
	// had.
	bodies [2]*metrics.Counter
	panics [numBoundaries]*metrics.Counter // by boundary, see recover.go
	// challenges counts ACME HTTP-01 challenges: [0] unknown tokens, [1]
	// answered.
	challenges [2]*metrics.Counter
	// fieldsDropped counts upstream answer fields left out for bytes no
	// field may hold (package exchange's relay.go).
	fieldsDropped *metrics.Counter
	// fallback counts forwards of fallback rules (package exchange's
	// fallback.go), by exchange.FallbackAnswered and FallbackRelayed.
	fallback [2]*metrics.Counter
	// onePass counts lookups whose regex candidates went past the
	// matcher's work budget (conn.lookup).
	onePass *metrics.Counter
	// pcreAbandoned counts lookups that left PCRE regexes unrun past
	// their work budget (conn.lookup).
	pcreAbandoned *metrics.Counter
}

// outcome classifies a local answer.
type outcome uint8

const (
	outRedirect outcome = iota
	outMiss
	outClientError
	outServerError
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"redirect", "miss", "client_error", "server_error"}

// statusesOf lists the statuses each outcome answers with.
var statusesOf = [numOutcomes][]int{
	outRedirect:    {301, 302, 303, 307, 308},
	outMiss:        {404},
	outClientError: {400, 408, 413, 414, 431},
	outServerError: {500, 501, 502, 504, 505},
}

// metricHelp is the HELP text of every family registered here: a family
// added without a line fails TestMetricHelp, which names it.
var metricHelp = promtext.Help{
	"redirectd_acme_http_challenges_total":    "ACME HTTP-01 challenge requests on the plain port, answered or for a token no order knows (404).",
	"redirectd_regex_one_pass_total":          "Lookups whose regex candidates cost more than the work budget one by one, the rest answered in one pass over the path: most are requests crafted from the rules' literals.",
	"redirectd_regex_pcre_abandoned_total":    "Lookups that spent the work budget of the regexes run as PCRE (lookarounds, backreferences), the ones left counted as not matching: most are requests crafted from the rules' literals.",
	"redirectd_upstream_idle_closed_total":    "Pooled upstream connections closed unused because bytes or an end of stream came while they were idle.",
	"redirectd_upstream_fields_dropped_total": "Fields of upstream answers left out because their name is not a token or their value holds a control byte.",
	"redirectd_proxy_protocol_rejected_total": "Connections closed for their PROXY protocol header, by reason: an untrusted peer, a missing or a malformed header.",
	"redirectd_requests_total":                "Requests answered, by outcome (redirect, miss, forwarded, client_error, server_error) and status (a class for forwarded ones).",
	"redirectd_request_duration_seconds":      "Time to answer a request, local (the mean of one read's answers, sampled) or forwarded, in seconds.",
	"redirectd_bytes_total":                   "Bytes read from and written to clients on the traffic ports.",
	"redirectd_connections_accepted_total":    "Client connections accepted.",
	"redirectd_http2_connections_total":       "TLS connections that negotiated HTTP/2 (ALPN h2).",
	"redirectd_http2_streams_total":           "Requests received on HTTP/2 connections (streams handed to the decision).",
	"redirectd_connections_rejected_total":    "Client connections refused at once, by the limit reached.",
	"redirectd_connections_timed_out_total":   "Client connections closed by a timeout, by timeout.",
	"redirectd_panics_total":                  "Panics recovered, by where they were caught; each is logged with its stack.",
	"redirectd_connections_open":              "Client connections open now.",
	"redirectd_draining":                      "1 while the server drains for shutdown, else 0.",
	"redirectd_upstream_requests_total":       "Requests forwarded to each upstream server, by group and result.",
	"redirectd_upstream_server_up":            "Whether each upstream server of each group is in service (1) or taken out by its health check or failed connections (0).",
	"redirectd_upstream_duration_seconds":     "Time each upstream server took to answer, in seconds.",
	"redirectd_upstream_request_bodies_total": "Forwarded request bodies: read whole before an upstream connection was taken (buffered), or larger than request_buffer_bytes and passed on as they came (streamed).",
}

func newServerMetrics(s *Server) *serverMetrics {
	m := &serverMetrics{set: metrics.NewSet()}
	for o := range numOutcomes {
		for _, st := range statusesOf[o] {
			m.answered[o][st] = m.set.NewCounter(fmt.Sprintf(`redirectd_requests_total{outcome=%q,status="%d"}`, outcomeNames[o], st))
		}
		m.answeredOther[o] = m.set.NewCounter(fmt.Sprintf(`redirectd_requests_total{outcome=%q,status="other"}`, outcomeNames[o]))
	}
	for c := 1; c <= 5; c++ {
		m.forwarded[c] = m.set.NewCounter(fmt.Sprintf(`redirectd_requests_total{outcome="forwarded",status="%dxx"}`, c))
	}
	m.localDur = m.set.NewPrometheusHistogramExt(`redirectd_request_duration_seconds{kind="local"}`,
		[]float64{1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2, 0.1})
	m.fwdDur = m.set.NewPrometheusHistogram(`redirectd_request_duration_seconds{kind="forwarded"}`)
	m.bytesIn = m.set.NewCounter(`redirectd_bytes_total{direction="in"}`)
	m.bytesOut = m.set.NewCounter(`redirectd_bytes_total{direction="out"}`)
	m.accepted = m.set.NewCounter(`redirectd_connections_accepted_total`)
	m.h2conns = m.set.NewCounter(`redirectd_http2_connections_total`)
	m.h2streams = m.set.NewCounter(`redirectd_http2_streams_total`)
	m.rejected[overPerIP] = m.set.NewCounter(`redirectd_connections_rejected_total{reason="per_ip_limit"}`)
	m.rejected[overTotal] = m.set.NewCounter(`redirectd_connections_rejected_total{reason="global_limit"}`)
	m.timeouts.idle = m.set.NewCounter(`redirectd_connections_timed_out_total{timeout="idle"}`)
	m.timeouts.header = m.set.NewCounter(`redirectd_connections_timed_out_total{timeout="header"}`)
	m.timeouts.linger = m.set.NewCounter(`redirectd_connections_timed_out_total{timeout="linger"}`)
	m.timeouts.body = m.set.NewCounter(`redirectd_connections_timed_out_total{timeout="body"}`)
	m.timeouts.bodyRate = m.set.NewCounter(`redirectd_connections_timed_out_total{timeout="body_rate"}`)
	m.bodies[exchange.BodyBuffered] = m.set.NewCounter(`redirectd_upstream_request_bodies_total{result="buffered"}`)
	m.bodies[exchange.BodyStreamed] = m.set.NewCounter(`redirectd_upstream_request_bodies_total{result="streamed"}`)
	m.timeouts.send = m.set.NewCounter(`redirectd_connections_timed_out_total{timeout="send"}`)
	m.timeouts.tunnel = m.set.NewCounter(`redirectd_connections_timed_out_total{timeout="tunnel"}`)
	for at := range numBoundaries {
		m.panics[at] = m.set.NewCounter(fmt.Sprintf(`redirectd_panics_total{at=%q}`, boundaryNames[at]))
	}
	m.challenges[0] = m.set.NewCounter(`redirectd_acme_http_challenges_total{result="unknown"}`)
	m.challenges[1] = m.set.NewCounter(`redirectd_acme_http_challenges_total{result="answered"}`)
	m.fieldsDropped = m.set.NewCounter(`redirectd_upstream_fields_dropped_total`)
	m.newFallbackMetrics()
	m.onePass = m.set.NewCounter(`redirectd_regex_one_pass_total`)
	m.pcreAbandoned = m.set.NewCounter(`redirectd_regex_pcre_abandoned_total`)
	m.set.NewGauge(`redirectd_connections_open`, func() float64 { return float64(s.conns.total.Load()) })
	m.set.NewGauge(`redirectd_draining`, func() float64 {
		if s.draining.Load() {
			return 1
		}
		return 0
	})
	return m
}

// answer counts one local answer.
func (m *serverMetrics) answer(o outcome, status int) { m.answerCounter(o, status).Inc() }

// answerCounter is the counter of a local answer.
func (m *serverMetrics) answerCounter(o outcome, status int) *metrics.Counter {
	if status > 0 && status < 600 {
		if c := m.answered[o][status]; c != nil {
			return c
		}
	}
	return m.answeredOther[o]
}

// answerTally counts the answers of one read: a run of answers with the
// same outcome and status, as pipelined requests mostly are, costs one
// atomic add on a counter every loop shares rather than one per answer.
type answerTally struct {
	c *metrics.Counter
	n int
}

func (t *answerTally) add(c *metrics.Counter) {
	if c != t.c {
		t.flush()
		t.c = c
	}
	t.n++
}

// flush adds the run counted so far to its counter.
func (t *answerTally) flush() {
	if t.n > 0 {
		t.c.Add(t.n)
	}
	t.c, t.n = nil, 0
}

// forServer returns the metrics of srv in the group named group: made
// once per group and address, and kept across reloads, so that a group
// rebuilt with the same servers goes on counting where it was; the
// health gauge reads the server given last.
func (m *serverMetrics) forServer(group string, srv *upstream.Server) *exchange.ServerMetrics {
	m.upMu.Lock()
	defer m.upMu.Unlock()
	key := group + "\x00" + srv.Addr
	if um := m.ups[key]; um != nil {
		um.Srv.Store(srv)
		return um
	}
	l := `group=` + strconv.Quote(group) + `,server=` + strconv.Quote(srv.Addr)
	um := &exchange.ServerMetrics{
		OK:          m.set.GetOrCreateCounter(`redirectd_upstream_requests_total{` + l + `,result="answered"}`),
		Failed:      m.set.GetOrCreateCounter(`redirectd_upstream_requests_total{` + l + `,result="error"}`),
		TimedOut:    m.set.GetOrCreateCounter(`redirectd_upstream_requests_total{` + l + `,result="timeout"}`),
		PoolFull:    m.set.GetOrCreateCounter(`redirectd_upstream_requests_total{` + l + `,result="pool_full"}`),
		ClientLimit: m.set.GetOrCreateCounter(`redirectd_upstream_requests_total{` + l + `,result="client_limit"}`),
		Stale:       m.set.GetOrCreateCounter(`redirectd_upstream_idle_closed_total{` + l + `}`),
		Dur:         m.set.GetOrCreatePrometheusHistogram(`redirectd_upstream_duration_seconds{` + l + `}`),
	}
	um.Srv.Store(srv)
	m.set.GetOrCreateGauge(`redirectd_upstream_server_up{`+l+`}`, func() float64 {
		if um.Srv.Load().Up() {
			return 1
		}
		return 0
	})
	if m.ups == nil {
		m.ups = map[string]*exchange.ServerMetrics{}
	}
	m.ups[key] = um
	return um
}

// WriteMetrics writes the server's metrics in Prometheus text format, with
// HELP and TYPE lines.
func (s *Server) WriteMetrics(w io.Writer) { promtext.WriteSet(w, s.m.set, metricHelp) }
