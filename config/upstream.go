package config

import (
	"fmt"
	"time"

	"github.com/redirectd/redirectd/engine/forward"
)

// Upstream is the [upstream] table, the group named "default", or one
// [upstreams.NAME] group: where misses are forwarded.
type Upstream struct {
	// Name is the group's name: "default" for [upstream].
	Name string `toml:"-"`
	// Servers are the application servers as written: "host:port" or
	// "http://host[:port]" (plain), "https://host[:port]" (TLS);
	// Targets is them parsed, in the same order.
	Servers []string `toml:"servers"`
	Targets []Target `toml:"-"`
	// Balance is "round_robin" (default) or "least_conn".
	Balance string `toml:"balance"`
	// MaxConnsPerServer bounds the pooled connections to each server
	// (default 512).
	MaxConnsPerServer int `toml:"max_conns_per_server"`
	// ConnectTimeout bounds dialing a server (default 2s).
	ConnectTimeout Duration `toml:"connect_timeout"`
	// ReadTimeout bounds each wait for bytes of an answer: its first
	// byte, then the time between two reads; not the whole answer
	// (default 30s).
	ReadTimeout Duration `toml:"read_timeout"`
	// WriteTimeout bounds each write of a request to a server, not the
	// whole request (default 30s).
	WriteTimeout Duration `toml:"write_timeout"`
	// PoolWaitTimeout bounds the wait for a connection when a server has
	// max_conns_per_server in use; past it the client gets 503 with
	// Retry-After (default 2s).
	PoolWaitTimeout Duration `toml:"pool_wait_timeout"`
	// SendTimeout closes a client that takes nothing of a relayed answer
	// (or tunnel) for this long (default 30s).
	SendTimeout Duration `toml:"send_timeout"`
	// BodyTimeout answers 408 when no byte of a forwarded request's body
	// is passed on for this long (default 10s).
	BodyTimeout Duration `toml:"body_timeout"`
	// TunnelIdleTimeout closes a WebSocket tunnel that moves no byte
	// either way for this long (default 5m).
	TunnelIdleTimeout Duration `toml:"tunnel_idle_timeout"`
	// HostHeader is "preserve" (default: the client's Host), "upstream"
	// (the server's address) or a host name sent as it is (nginx's
	// proxy_set_header Host name).
	HostHeader string `toml:"host_header"`
	// MaxRequestBodyBytes bounds a forwarded request body; 0 means no
	// limit.
	MaxRequestBodyBytes int64 `toml:"max_request_body_bytes"`
	// RequestBufferBytes is how much of a request body is read before a
	// pooled connection is taken (default 65536): a body no larger is
	// read whole first, as nginx's proxy_request_buffering does, so that
	// a client sending it slowly holds no upstream connection.
	RequestBufferBytes int `toml:"request_buffer_bytes"`
	// BodyMinRate is the lowest mean rate, in bytes per second, of the
	// rest of a body larger than RequestBufferBytes once its exchange has
	// started (default 4096): 408 past body_timeout plus a second per
	// body_min_rate bytes received.
	BodyMinRate int64 `toml:"body_min_rate"`
	// MaxConnsPerClient bounds the upstream exchanges the requests of one
	// client address run at once (default 64); past it, 429.
	MaxConnsPerClient int `toml:"max_conns_per_client"`
	// HealthCheck, when set, probes each server actively.
	HealthCheck *HealthCheck `toml:"health_check"`
	// UpstreamTLS: how the https:// servers are reached (upstream_tls.go).
	UpstreamTLS
}

// HealthCheck is the optional active check of the upstream servers.
type HealthCheck struct {
	// Path is requested with GET; a 2xx or 3xx answer is healthy.
	Path string `toml:"path"`
	// Interval between checks of one server (default 5s).
	Interval Duration `toml:"interval"`
}

// Upstream defaults. Those the engine also applies (to a
// forward.Options left zero) are declared there, once, and named
// here.
const (
	DefaultMaxConnsPerServer  = 512
	DefaultConnectTimeout     = 2 * time.Second
	DefaultReadTimeout        = 30 * time.Second
	DefaultWriteTimeout       = 30 * time.Second
	DefaultPoolWaitTimeout    = 2 * time.Second
	DefaultSendTimeout        = forward.DefaultSendTimeout
	DefaultBodyTimeout        = forward.DefaultBodyTimeout
	DefaultTunnelIdleTimeout  = forward.DefaultTunnelIdleTimeout
	DefaultRequestBufferBytes = forward.DefaultRequestBufferBytes
	// maxRequestBufferBytes bounds request_buffer_bytes: the buffer is
	// memory held per client connection.
	maxRequestBufferBytes    = 64 << 20
	DefaultBodyMinRate       = forward.DefaultBodyMinRate
	DefaultMaxConnsPerClient = forward.DefaultMaxConnsPerClient
	// minProgressTimeout is the shortest send, body or tunnel timeout:
	// the deadline sweep that enforces them runs every 100 ms.
	minProgressTimeout    = 100 * time.Millisecond
	DefaultHealthInterval = 5 * time.Second
)

// checkUpstream validates [upstream] (table "upstream") or a named group
// (table "upstreams.NAME") and fills its defaults; fl reads its TLS
// files.
func checkUpstream(file, table string, u *Upstream, fl files, loc *locator, errs *errorList) {
	bad := func(key, format string, args ...any) {
		line := loc.line(table, 0, key)
		if key == "path" || key == "interval" {
			line = loc.line(table, 0, "health_check")
		}
		errs.add(&Error{File: file, Line: line, What: "[" + table + "]", Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	checkServers(u, bad)
	switch u.Balance {
	case "":
		u.Balance = "round_robin"
	case "round_robin", "least_conn":
	default:
		bad("balance", "%q is not a balancing method; use \"round_robin\" or \"least_conn\"", u.Balance)
	}
	switch u.HostHeader {
	case "":
		u.HostHeader = "preserve"
	case "preserve", "upstream":
	default:
		if msg := checkHostValue(u.HostHeader); msg != "" {
			bad("host_header", "%q %s; use \"preserve\", \"upstream\" or a host name such as \"blog.example.net\"", cut(u.HostHeader), msg)
		}
	}
	if u.MaxConnsPerServer < 0 || u.MaxRequestBodyBytes < 0 {
		bad("max_conns_per_server", "negative values are not allowed; leave a key out for its default")
	}
	if u.MaxConnsPerServer == 0 {
		u.MaxConnsPerServer = DefaultMaxConnsPerServer
	}
	defaultCount(bad, "request_buffer_bytes", &u.RequestBufferBytes, DefaultRequestBufferBytes, "")
	if u.RequestBufferBytes > maxRequestBufferBytes {
		bad("request_buffer_bytes", "%d is more than %d: the buffer is memory each client connection may hold", u.RequestBufferBytes, maxRequestBufferBytes)
	}
	defaultCount(bad, "body_min_rate", &u.BodyMinRate, DefaultBodyMinRate, " bytes a second")
	defaultCount(bad, "max_conns_per_client", &u.MaxConnsPerClient, DefaultMaxConnsPerClient, "")
	defaultDuration(&u.ConnectTimeout, DefaultConnectTimeout)
	defaultDuration(&u.ReadTimeout, DefaultReadTimeout)
	defaultDuration(&u.WriteTimeout, DefaultWriteTimeout)
	defaultDuration(&u.PoolWaitTimeout, DefaultPoolWaitTimeout)
	for _, d := range []struct {
		key string
		d   *Duration
		def time.Duration
	}{
		{"send_timeout", &u.SendTimeout, DefaultSendTimeout},
		{"body_timeout", &u.BodyTimeout, DefaultBodyTimeout},
		{"tunnel_idle_timeout", &u.TunnelIdleTimeout, DefaultTunnelIdleTimeout},
	} {
		defaultDuration(d.d, d.def)
		if d.d.Std() < minProgressTimeout {
			bad(d.key, "%s is shorter than the deadline sweep's 100ms; use at least \"100ms\"", d.d.Std())
		}
	}
	if hc := u.HealthCheck; hc != nil {
		if len(hc.Path) == 0 || hc.Path[0] != '/' {
			bad("path", "health_check path %q must start with '/'", hc.Path)
		}
		defaultDuration(&hc.Interval, DefaultHealthInterval)
	}
	checkUpstreamTLS(u, fl, bad)
}

// checkServers parses u's servers into its Targets.
func checkServers(u *Upstream, bad func(key, format string, args ...any)) {
	if len(u.Servers) == 0 {
		bad("servers", "empty; list at least one host:port, such as [\"127.0.0.1:8081\"]")
	}
	u.Targets = u.Targets[:0]
	for _, s := range u.Servers {
		t, msg := parseTarget(s)
		if msg != "" {
			bad("servers", "%q %s", cut(s), msg)
			continue
		}
		u.Targets = append(u.Targets, t)
	}
}

// defaultCount sets *v, the value of key, to def when it is left out
// (0), and reports a negative one through bad, naming the default and its
// unit.
func defaultCount[T int | int64](bad func(key, format string, args ...any), key string, v *T, def T, unit string) {
	switch {
	case *v < 0:
		bad(key, "negative values are not allowed; leave the key out for its default (%d%s)", def, unit)
	case *v == 0:
		*v = def
	}
}

func defaultDuration(d *Duration, def time.Duration) {
	if *d == 0 {
		*d = Duration(def)
	}
}
