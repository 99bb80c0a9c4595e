package upstream

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/valyala/fasthttp"

	"github.com/redirectd/redirectd/internal/safego"
)

// Config describes the servers and how to reach them.
type Config struct {
	// Group names the servers' group in log lines and errors ("" for
	// "default").
	Group string
	// Servers are plain host:port addresses; Targets, when set, are used
	// instead, each with its own TLS settings.
	Servers           []string
	Targets           []Target
	LeastConn         bool // else round robin
	MaxConnsPerServer int
	ConnectTimeout    time.Duration
	// ReadTimeout bounds each wait for bytes of an answer: its first
	// byte after the request is sent, and every later read (not the
	// whole answer). WriteTimeout bounds each write of a request. See
	// progressConn.
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	// PoolWaitTimeout bounds the wait for a pooled connection when a
	// server has MaxConnsPerServer in use; past it Do fails with
	// fasthttp.ErrNoFreeConns. 0: fail at once.
	PoolWaitTimeout time.Duration
	// HealthPath, when set, is requested every HealthInterval on each
	// server; a 2xx or 3xx answer marks it up.
	HealthPath     string
	HealthInterval time.Duration
	// HealthHost is the Host of a health check; "" sends the server's
	// address.
	HealthHost string
}

// Target is one server: its address, and its TLS client settings when it
// is reached over TLS (nil: plain HTTP).
type Target struct {
	Addr string
	TLS  *tls.Config
}

// Passive health: after failThreshold failed connections in a row a server
// is taken out for a back-off that doubles on each further failure, from
// minBackoff to maxBackoff.
const (
	failThreshold = 3
	minBackoff    = time.Second
	maxBackoff    = 30 * time.Second
)

// ErrAllDown is returned by Pick when every server is out of service.
var ErrAllDown = errors.New("upstream: every server is down")

// Pool is the set of servers. It is safe for concurrent use.
type Pool struct {
	servers   []*Server
	leastConn bool
	next      atomic.Uint64
	cancel    context.CancelFunc
	log       *slog.Logger
}

// Server is one application server.
type Server struct {
	Addr   string
	Client *fasthttp.HostClient
	cfg    *Config
	// tls is the TLS client config of an https:// server; nil: plain.
	tls *tls.Config
	// inflight counts requests being forwarded, for least_conn.
	inflight atomic.Int64
	// fails counts failed connections in a row; downUntil is when a
	// server taken out may be tried again (Unix ns; 0: in service).
	fails     atomic.Int64
	downUntil atomic.Int64
	// stale counts pooled connections closed for bytes or an EOF that
	// came while they were idle (progressConn).
	stale atomic.Pointer[metrics.Counter]
	// healthChecked is set when an active check decides the server's state:
	// a server taken out then waits for the check, not for the back-off.
	healthChecked bool
}

// New builds the pool and starts the active health checks, if any; log
// may be nil.
func New(cfg Config, log *slog.Logger) *Pool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Pool{leastConn: cfg.LeastConn, cancel: cancel, log: log}
	if cfg.Group == "" {
		cfg.Group = "default"
	}
	targets := cfg.Targets
	if len(targets) == 0 {
		for _, addr := range cfg.Servers {
			targets = append(targets, Target{Addr: addr})
		}
	}
	for _, t := range targets {
		s := &Server{Addr: t.Addr, cfg: &cfg, healthChecked: cfg.HealthPath != ""}
		s.tls = s.clientTLS(t.TLS, log)
		s.Client = newClient(s)
		p.servers = append(p.servers, s)
		if cfg.HealthPath != "" {
			go s.checkLoop(ctx, log)
		}
	}
	return p
}

// newClient returns the HostClient for one server, set up to pass requests
// and answers through unchanged.
func newClient(s *Server) *fasthttp.HostClient {
	cfg := s.cfg
	return &fasthttp.HostClient{
		Addr: s.Addr,
		// The timeouts are the connection's, between bytes
		// (progressConn), not fasthttp's, per exchange. TLS is done
		// here too (IsTLS stays false), so that the handshake is bounded
		// by connect_timeout and progressConn sits above the TLS layer.
		Dial: func(a string) (net.Conn, error) {
			redial := func() (net.Conn, error) { return s.dial(a) }
			c, err := redial()
			if err != nil {
				return nil, err
			}
			return &progressConn{Conn: c, read: cfg.ReadTimeout, write: cfg.WriteTimeout, srv: s, dial: redial}, nil
		},
		MaxConns:           cfg.MaxConnsPerServer,
		MaxConnWaitTimeout: cfg.PoolWaitTimeout,
		ReadBufferSize:     MaxAnswerHead,
		// Header names and paths go through as the client sent them, the
		// target and Host as the caller set them (asSet).
		Transport:                     asSet{},
		DisableHeaderNamesNormalizing: true,
		DisablePathNormalizing:        true,
		NoDefaultUserAgentHeader:      true,
		StreamResponseBody:            true,
		// One retry, for an idempotent request that failed on a reused
		// idle connection before any byte came back (the server closed
		// it); fasthttp's default of five would multiply timeouts.
		MaxIdemponentCallAttempts: 2,
		RetryIfErr: func(req *fasthttp.Request, attempts int, err error) (resetTimeout, retry bool) {
			return false, attempts < 2 && idempotent(&req.Header) && closedBeforeAnswer(err)
		},
		MaxIdleConnDuration: 10 * time.Second,
	}
}

// CountStale makes c count the server's pooled connections closed before
// reuse because bytes or an end of stream came while they were idle.
func (s *Server) CountStale(c *metrics.Counter) { s.stale.Store(c) }

// Close stops the active health checks and closes idle connections.
func (p *Pool) Close() {
	p.cancel()
	for _, s := range p.servers {
		s.Client.CloseIdleConnections()
	}
}

// Servers returns the servers, in configured order.
func (p *Pool) Servers() []*Server { return p.servers }

// Pick chooses a server in service for one request and counts it in
// flight; the caller reports the outcome with Done.
func (p *Pool) Pick() (*Server, error) {
	now := time.Now().UnixNano()
	n := len(p.servers)
	start := int(p.next.Add(1) % uint64(n))
	var best *Server
	for i := 0; i < n; i++ {
		s := p.servers[(start+i)%n]
		if !s.up(now) {
			continue
		}
		if !p.leastConn {
			best = s
			break
		}
		if best == nil || s.inflight.Load() < best.inflight.Load() {
			best = s
		}
	}
	if best == nil {
		return nil, ErrAllDown
	}
	best.inflight.Add(1)
	return best, nil
}

// Up reports whether s is in service now: for the health gauge.
func (s *Server) Up() bool { return s.up(time.Now().UnixNano()) }

// up reports whether s may be sent requests.
func (s *Server) up(now int64) bool {
	until := s.downUntil.Load()
	return until == 0 || (!s.healthChecked && now >= until)
}

// Done reports the outcome of a request Pick chose s for. connFailed says
// the server could not be reached (refused, dial timeout): enough of
// those in a row take it out of service.
func (s *Server) Done(connFailed bool) {
	s.inflight.Add(-1)
	if !connFailed {
		s.fails.Store(0)
		if !s.healthChecked {
			s.downUntil.Store(0)
		}
		return
	}
	n := s.fails.Add(1)
	if n < failThreshold {
		return
	}
	backoff := minBackoff << min(n-failThreshold, 5)
	s.downUntil.Store(time.Now().Add(min(backoff, maxBackoff)).UnixNano())
}

// Cancel reports that a request Pick chose s for was never sent (its
// client left, or was refused, before the exchange began): it is no
// longer in flight, and says nothing of the server's health.
func (s *Server) Cancel() { s.inflight.Add(-1) }

// ConnectTimeout is how long dialing s may take.
func (s *Server) ConnectTimeout() time.Duration { return s.cfg.ConnectTimeout }

// ReadTimeout is how long s may take to send the next bytes of an answer.
func (s *Server) ReadTimeout() time.Duration { return s.cfg.ReadTimeout }

// checkLoop probes s until ctx ends: a failed check takes it out, a passing
// one brings it back.
func (s *Server) checkLoop(ctx context.Context, log *slog.Logger) {
	defer safego.Recover("upstream health check")
	t := time.NewTicker(s.cfg.HealthInterval)
	defer t.Stop()
	for {
		ok := s.check()
		wasDown := s.downUntil.Load() != 0
		switch {
		case ok && wasDown:
			s.fails.Store(0)
			s.downUntil.Store(0)
			log.Info("upstream server back in service", "server", s.Addr)
		case !ok && !wasDown:
			s.downUntil.Store(time.Now().UnixNano())
			log.Warn("upstream server failed its health check", "server", s.Addr, "path", s.cfg.HealthPath)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// check requests the health path once.
func (s *Server) check() bool {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(s.cfg.HealthPath)
	req.Header.SetHost(s.Addr)
	if s.cfg.HealthHost != "" {
		req.Header.SetHost(s.cfg.HealthHost)
	}
	timeout := s.cfg.ConnectTimeout + s.cfg.ReadTimeout
	if err := s.Client.DoTimeout(req, resp, timeout); err != nil {
		return false
	}
	if bs := resp.BodyStream(); bs != nil {
		resp.CloseBodyStream()
	}
	code := resp.StatusCode()
	return code >= 200 && code < 400
}

// IsConnError reports whether err means the server could not be reached,
// as opposed to a slow or failed answer.
func IsConnError(err error) bool {
	var te *TLSError
	if errors.As(err, &te) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return errors.Is(err, fasthttp.ErrDialTimeout)
}

// idempotent reports whether a request may be sent twice (RFC 9110 9.2.2).
func idempotent(h *fasthttp.RequestHeader) bool {
	return h.IsGet() || h.IsHead() || h.IsPut() || h.IsDelete() || h.IsOptions() || h.IsTrace()
}

// closedBeforeAnswer reports whether err means the connection was closed
// by the server before any byte of the answer came back: what a reused
// idle connection that the server had just closed gives.
func closedBeforeAnswer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, fasthttp.ErrConnectionClosed)
}
