package h2

import (
	"time"

	"golang.org/x/time/rate"
)

// Options bound one connection. A zero field takes its default.
type Options struct {
	// MaxConcurrentStreams is SETTINGS_MAX_CONCURRENT_STREAMS: streams
	// the client may have open at once (default 100, as nginx's
	// http2_max_concurrent_streams). One more is refused with
	// RST_STREAM REFUSED_STREAM, and counted as a reset.
	MaxConcurrentStreams uint32
	// MaxHeaderListSize is SETTINGS_MAX_HEADER_LIST_SIZE: the fields of
	// one request, each counted as name + value + 32 (default 64 KiB,
	// the HTTP/1.1 port's bound on a head). A larger list is answered
	// 431 once its block is decoded.
	MaxHeaderListSize uint32
	// MaxHeaderBlockBytes and MaxHeaderBlockFrames bound one header
	// block as it arrives, HEADERS and CONTINUATION frames together
	// (default twice MaxHeaderListSize, and 32 frames): past either the
	// connection gets GOAWAY ENHANCE_YOUR_CALM, before anything more is
	// read of it. The hpack decoder keeps no more than one field of it.
	MaxHeaderBlockBytes  int
	MaxHeaderBlockFrames int
	// StreamWindow is SETTINGS_INITIAL_WINDOW_SIZE, what a stream may send
	// before the server opens more (default 64 KiB); ConnWindow is the
	// connection's receive window (default 1 MiB).
	StreamWindow uint32
	ConnWindow   uint32
	// MaxBodyBytes bounds the body buffered for one stream (default
	// 1 MiB): a longer one has the stream handed over with BodyTooLarge
	// set, and the rest is dropped.
	MaxBodyBytes int
	// MaxConnBodyBytes bounds the bodies buffered for all of a
	// connection's streams at once (default 1 MiB, as the plain port
	// bounds what waits behind a forward): a stream whose body would pass
	// it is handed over with BodyTooLarge, as above.
	MaxConnBodyBytes int
	// ResetsPerSecond and ResetBurst are a token bucket for the streams
	// the client resets (RST_STREAM) or has refused (default 100 a
	// second, 200 at once): a client that opens and cancels streams
	// faster (rapid reset, CVE-2023-44487) gets GOAWAY ENHANCE_YOUR_CALM.
	ResetsPerSecond, ResetBurst int
	// ControlPerSecond and ControlBurst are the same for control frames
	// that cost the server work and answer no request: SETTINGS, PING,
	// PRIORITY, WINDOW_UPDATE, empty DATA and unknown frames (default
	// 1000 a second, 2000 at once).
	ControlPerSecond, ControlBurst int
	// PrefaceTimeout bounds the client's preface and first SETTINGS
	// (default 10s); IdleTimeout closes a connection with no stream open
	// and nothing received for that long, after GOAWAY NO_ERROR (default
	// 60s). While a stream waits for the client's body, the wait for a
	// frame is bounded by IdleTimeout too.
	PrefaceTimeout, IdleTimeout time.Duration
	// SendTimeout bounds how long an answer's body may wait for the
	// client's window without a byte going out (default IdleTimeout, as
	// send_timeout on the HTTP/1.1 path): past it the stream is reset
	// with CANCEL and its writer (a forward relaying the upstream's
	// answer) gets ErrSendTimeout, letting go of the upstream connection
	// and the client's slot. The client's other frames (PING, SETTINGS)
	// do not extend it: only window that lets bytes out does.
	SendTimeout time.Duration
	// BodyTimeout bounds how long a request body may go without a byte
	// before its answer (default PrefaceTimeout, the engine's
	// header_timeout; a HeadDecider may give a stream its own, the
	// upstream's body_timeout): a body being buffered is reset with
	// CANCEL, one dropped after an answer from the head with NO_ERROR.
	// Only DATA with bytes extends it.
	BodyTimeout time.Duration
	// MaxClientBodyBytes bounds the bodies buffered for one client
	// across all its connections (default 4 MiB), where the handler
	// counts them (BodyBudget): a stream whose body would pass it is
	// streamed instead.
	MaxClientBodyBytes int

	// The bounds below are not config keys; they are here so that every
	// bound of a connection is declared in one place, with its default.

	// QuietAfter is how long a connection with no stream open reads
	// nothing before it gives back its buffers and Serve returns quiet
	// (buffers.go; default 250ms).
	QuietAfter time.Duration
	// MaxPendingBytes is how much of a streamed answer body a stream
	// keeps while the client's window is closed: WriteData waits past it
	// (default 64 KiB).
	MaxPendingBytes int
	// MaxKeptStreamBytes bounds the buffers a spent stream may hold to be
	// reused; one grown by a large body or field list is let go (default
	// 64 KiB).
	MaxKeptStreamBytes int
	// LingerTimeout and LingerBytes bound what is read and dropped after
	// a GOAWAY with an error, so that the close does not reset the
	// connection before the client has read the GOAWAY (default 1s and
	// 64 KiB).
	LingerTimeout time.Duration
	LingerBytes   int64
}

// The defaults of Options.
const (
	DefaultMaxConcurrentStreams = 100
	DefaultMaxHeaderListSize    = 64 << 10
	DefaultMaxHeaderBlockFrames = 32
	DefaultStreamWindow         = 64 << 10
	DefaultConnWindow           = 1 << 20
	DefaultMaxBodyBytes         = 1 << 20
	DefaultMaxClientBodyBytes   = 4 << 20
	DefaultResetsPerSecond      = 100
	DefaultControlPerSecond     = 1000
	DefaultPrefaceTimeout       = 10 * time.Second
	DefaultIdleTimeout          = 60 * time.Second
	DefaultQuietAfter           = 250 * time.Millisecond
	DefaultMaxPendingBytes      = 64 << 10
	DefaultMaxKeptStreamBytes   = 64 << 10
	DefaultLingerTimeout        = time.Second
	DefaultLingerBytes          = 64 << 10
)

// WithDefaults returns o with each zero field set to its default: the
// bounds a connection made with o applies (NewConn applies them too).
func (o Options) WithDefaults() Options {
	o.setDefaults()
	return o
}

func (o *Options) setDefaults() {
	def := func(v *uint32, d uint32) {
		if *v == 0 {
			*v = d
		}
	}
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxConcurrentStreams, DefaultMaxConcurrentStreams)
	def(&o.MaxHeaderListSize, DefaultMaxHeaderListSize)
	def(&o.StreamWindow, DefaultStreamWindow)
	def(&o.ConnWindow, DefaultConnWindow)
	o.StreamWindow = min(o.StreamWindow, maxWindow)
	o.ConnWindow = max(min(o.ConnWindow, maxWindow), initialWindow)
	defInt(&o.MaxHeaderBlockBytes, 2*int(o.MaxHeaderListSize))
	defInt(&o.MaxHeaderBlockFrames, DefaultMaxHeaderBlockFrames)
	defInt(&o.MaxBodyBytes, DefaultMaxBodyBytes)
	defInt(&o.MaxConnBodyBytes, DefaultMaxBodyBytes)
	defInt(&o.ResetsPerSecond, DefaultResetsPerSecond)
	defInt(&o.ResetBurst, 2*o.ResetsPerSecond)
	defInt(&o.ControlPerSecond, DefaultControlPerSecond)
	defInt(&o.ControlBurst, 2*o.ControlPerSecond)
	if o.PrefaceTimeout <= 0 {
		o.PrefaceTimeout = DefaultPrefaceTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.SendTimeout <= 0 {
		o.SendTimeout = o.IdleTimeout
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = o.PrefaceTimeout
	}
	defInt(&o.MaxClientBodyBytes, DefaultMaxClientBodyBytes)
	if o.QuietAfter <= 0 {
		o.QuietAfter = DefaultQuietAfter
	}
	defInt(&o.MaxPendingBytes, DefaultMaxPendingBytes)
	defInt(&o.MaxKeptStreamBytes, DefaultMaxKeptStreamBytes)
	if o.LingerTimeout <= 0 {
		o.LingerTimeout = DefaultLingerTimeout
	}
	if o.LingerBytes <= 0 {
		o.LingerBytes = DefaultLingerBytes
	}
}

// initialWindow is the window every stream and the connection start with
// (RFC 9113 6.9.2); maxWindow the largest a window may be (6.9.1).
const (
	initialWindow = 65535
	maxWindow     = 1<<31 - 1
)

// fill readies the zero Limiter l as a token bucket of perSecond a
// second and burst at once, full at first, as rate.NewLimiter's
// (golang.org/x/time/rate's, which takes the frame's time and allocates
// nothing per token), but in place: NewLimiter returns a pointer to a
// value that holds a mutex, which may not be copied. Set at the zero
// time, the bucket's last event is the zero time, so the first frame
// (perSecond > 0: setDefaults) finds it full, as NewLimiter's
// (TestLimiterFullAtFirst).
func fill(l *rate.Limiter, perSecond, burst int) {
	l.SetLimitAt(time.Time{}, rate.Limit(perSecond))
	l.SetBurstAt(time.Time{}, burst)
}
