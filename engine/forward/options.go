package forward

import (
	"time"

	"github.com/redirectd/redirectd/engine/upstream"
)

// Options configure forwarding of misses to one upstream group (the
// engine's UpstreamOptions).
type Options struct {
	// Name is the group's, for metrics and logs ("" for "default").
	Name string
	Pool *upstream.Pool
	// HostFromUpstream sends the server's address as Host instead of the
	// host the request was matched with (see RequestHeaders).
	HostFromUpstream bool
	// HostHeader, when set, is sent as Host instead (nginx's
	// proxy_set_header Host name).
	HostHeader string
	// MaxRequestBodyBytes bounds a forwarded body; 0: no limit.
	MaxRequestBodyBytes int64
	// BodyTimeout answers 408 when no byte of a forwarded request's body
	// is passed on for this long (default 10s): bytes the client sends
	// while the upstream takes none do not count.
	BodyTimeout time.Duration
	// SendTimeout closes a client connection whose relayed answer (or
	// tunnel) waits with nothing taken by the client for this long
	// (default 30s), which frees the upstream connection.
	SendTimeout time.Duration
	// TunnelIdleTimeout closes a tunnel that moves no byte either way
	// for this long (default 5m).
	TunnelIdleTimeout time.Duration
	// RequestBufferBytes is how much of a request body is read before
	// the exchange with the upstream starts (default 64 KiB): a body no
	// larger is read whole first, so a client sending it slowly holds no
	// pooled connection meanwhile (package exchange's body.go).
	RequestBufferBytes int
	// BodyMinRate is the lowest mean rate, in bytes per second, at which
	// the rest of a body larger than RequestBufferBytes must come once the
	// exchange has started (default 4096): it must be whole within
	// BodyTimeout plus one second per BodyMinRate bytes, else 408.
	BodyMinRate int64
	// MaxConnsPerClient bounds the exchanges the requests of one client
	// address run at once, each holding or waiting for a pooled
	// connection (default 64); past it a request gets 429.
	MaxConnsPerClient int
}

// Defaults of Options, applied by WithDefaults; config names them for
// the [upstream] keys.
const (
	DefaultBodyTimeout        = 10 * time.Second
	DefaultSendTimeout        = 30 * time.Second
	DefaultTunnelIdleTimeout  = 5 * time.Minute
	DefaultRequestBufferBytes = 64 << 10
	DefaultBodyMinRate        = 4096
	DefaultMaxConnsPerClient  = 64
)

// WithDefaults returns o with its zero fields set to their defaults.
func (o Options) WithDefaults() Options {
	if o.Name == "" {
		o.Name = "default"
	}
	orDefault(&o.BodyTimeout, DefaultBodyTimeout)
	orDefault(&o.SendTimeout, DefaultSendTimeout)
	orDefault(&o.TunnelIdleTimeout, DefaultTunnelIdleTimeout)
	orDefault(&o.RequestBufferBytes, DefaultRequestBufferBytes)
	orDefault(&o.BodyMinRate, DefaultBodyMinRate)
	orDefault(&o.MaxConnsPerClient, DefaultMaxConnsPerClient)
	return o
}

// orDefault sets *v to d unless it is above zero.
func orDefault[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}
