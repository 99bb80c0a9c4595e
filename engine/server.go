package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/engine/accesslog"
	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/forward/exchange"
	"github.com/redirectd/redirectd/engine/tlsport"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/internal/safego"
	"github.com/redirectd/redirectd/matcher"
)

// Options configure a Server. Zero values take the defaults named on each
// field.
type Options struct {
	// Listen is the traffic address, in any form net.Listen takes (a name
	// is resolved once, an empty host means every address; see
	// resolveListen). Port 0 picks a free port; Addr reports the address
	// bound.
	Listen string
	// EventLoops is the number of event loops; 0 means one per CPU.
	EventLoops int
	// MaxPathBytes bounds a request target; longer gets 414. Default 8192.
	MaxPathBytes int
	// IdleTimeout closes a connection that sends nothing for this long
	// between requests. Default 10s.
	IdleTimeout time.Duration
	// HeaderTimeout closes a connection that takes longer than this to
	// send a request head, answering 408. Default 10s.
	HeaderTimeout time.Duration
	// MaxConnsPerIP bounds the connections of one client address; one more
	// is closed at once. Default 256.
	MaxConnsPerIP int
	// IPv6Prefix is the length of the prefix that MaxConnsPerIP counts an
	// IPv6 client by, from 1 to 128: a host given a /64 can open
	// connections from 2^64 addresses. Default 64. IPv4 clients (mapped
	// ones too) are counted by their address.
	IPv6Prefix int
	// MaxConns bounds all connections; default: the file-descriptor limit
	// less a reserve, so accept never fails for lack of descriptors.
	MaxConns int
	// Takeover lets the listening addresses be served by another
	// instance already, as in a zero-downtime upgrade: each loop binds
	// beside it with SO_REUSEPORT and the kernel splits new connections
	// between the two until the old one stops. Without it an address in
	// use is an error, as it is for nginx, HAProxy and Caddy: a second
	// instance started by mistake would otherwise silently answer part of
	// the traffic with its own rules.
	Takeover bool
	// HTTPSRedirect answers every request not marked
	// "X-Forwarded-Proto: https" with a 301 to the same host and target
	// over https, for use behind a TLS terminator.
	HTTPSRedirect bool
	// AbsoluteRedirect sends a Location that is a path ("/new") as an
	// absolute URL, as nginx's default `absolute_redirect on` does
	// (location.go): the scheme of the listener, the request's Host name
	// and the listener's port unless it is the scheme's default.
	AbsoluteRedirect bool
	// RedirectPortFromHost makes AbsoluteRedirect's port the Host
	// header's (none when the Host names none or the scheme's default)
	// instead of the listener's, as Apache does with its default
	// UseCanonicalName Off: the port the client asked for, whatever the
	// port behind a balancer.
	RedirectPortFromHost bool
	// DeferAccept sets TCP_DEFER_ACCEPT and delayed ACKs on the listening
	// sockets, as HAProxy's tcp-smart-accept (its default) and nginx's
	// `listen ... deferred` do: the kernel hands a connection over with
	// its first request, so accepting and reading take one wakeup, and the
	// request's ACK goes out with the answer instead of in a packet of its
	// own. A connection that sends nothing is handed over only after about
	// a second, then timed out by HeaderTimeout as usual.
	DeferAccept bool
	// TLS, when set, serves TLS on a listener of its own.
	TLS *TLSOptions
	// ACMEChallenge, when set, answers ACME HTTP-01 challenges on the
	// plain port, before any rule and https_redirect: the body for
	// host's token at path, or false for one it does not know. It is
	// called off the event loops.
	ACMEChallenge func(host, path string) (body []byte, ok bool)
	// Proxies say whom to believe about the client's address and scheme
	// (client.go).
	Proxies ProxyOptions
	// Upstream, when set, receives the requests no rule matches and no
	// route sends elsewhere; without it (and a route) they get 404.
	Upstream *UpstreamOptions
	// Routes send the misses of a host and path prefix to other groups
	// (upstream_routes.go); SetUpstreams replaces them.
	Routes []UpstreamRoute
	// Groups are named groups no route names, which locations forward to
	// by name (locations.go); SetUpstreams replaces them.
	Groups []*UpstreamOptions
	// AccessLog, when set, gets a line per request; each loop writes
	// into its own buffer.
	AccessLog *accesslog.Log
	// Logger receives the server's and gnet's messages; nil discards them.
	Logger *slog.Logger
	// MissesCapacity is the number of paths that matched no rule tracked
	// for Misses, shared out between the loops; 0 counts none.
	MissesCapacity int
	// Now, when set, is the time the server's timeouts and Date follow
	// in place of time.Now: a test gives a fake clock and moves it, to
	// see a connection closed at its timeout and not before, however
	// loaded the machine.
	Now func() time.Time
}

// Defaults of Options.
const (
	DefaultMaxPathBytes  = 8192
	DefaultIdleTimeout   = 10 * time.Second
	DefaultHeaderTimeout = 10 * time.Second
	DefaultMaxConnsPerIP = 256
	DefaultIPv6Prefix    = 64
)

func (o *Options) setDefaults() {
	if o.MaxPathBytes <= 0 {
		o.MaxPathBytes = DefaultMaxPathBytes
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.HeaderTimeout <= 0 {
		o.HeaderTimeout = DefaultHeaderTimeout
	}
	if o.MaxConnsPerIP <= 0 {
		o.MaxConnsPerIP = DefaultMaxConnsPerIP
	}
	if o.IPv6Prefix <= 0 || o.IPv6Prefix > 128 {
		o.IPv6Prefix = DefaultIPv6Prefix
	}
	if o.MaxConns <= 0 {
		o.MaxConns = fdLimit() - 64
	}
	if o.EventLoops <= 0 {
		o.EventLoops = startProcs
	}
}

// fdLimit returns the soft limit on open files.
func fdLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 1 << 20
	}
	return int(rl.Cur)
}

// Server is the traffic listener. Create it with New, start it with Run.
type Server struct {
	opts   Options
	addr   string
	log    *slog.Logger
	rules  atomic.Pointer[matcher.Set]
	date   dateHeader
	clock  clock
	limits httpparse.Limits
	conns  connLimiter
	proxy  proxyPolicy
	// h2bodies counts the HTTP/2 request bodies buffered per client
	// (h2conn.go).
	h2bodies ipCounts
	// routes is where misses go: the upstream groups and the routes to
	// them, swapped whole by SetUpstreams (under upMu), read by the
	// loops without a lock.
	routes atomic.Pointer[routeTable]
	upMu   sync.Mutex
	m      *serverMetrics
	// workers run the forwards and ACME challenges.
	workers *fw.Workers
	// xhost is what the exchanges share (forwarding.go).
	xhost exchange.Host
	// tls is the TLS listener, if any.
	tls *tlsport.Listener
	// hsts is the Strict-Transport-Security line of the TLS port's
	// answers ("" for none); hstsVary is it with a Vary on
	// X-Forwarded-Proto (fields).
	hsts, hstsVary string
	// draining is set by Drain: answers close their connections and idle
	// connections are closed.
	draining atomic.Bool

	handler *handler
	// procs holds a P spare beside the event loops while they are
	// idle-ish (procs.go).
	procs spareProc
	ready chan struct{}
	// stopping is closed by Stop, so forwarding goroutines stop waiting
	// for callbacks that a stopped engine never runs.
	stopping chan struct{}
	stopOnce sync.Once
	engMu    sync.Mutex
	eng      gnet.Engine
	// panicHook is nil but in tests (SetPanicHook); see testPanic.
	panicHook func(at boundary, data []byte)
	// missSketches are the loops' miss counters (see misses.go).
	missSketches missSketches
}

// New returns a server that will answer from rules.
func New(opts Options, rules *matcher.Set) *Server {
	opts.setDefaults()
	s := &Server{opts: opts, log: opts.Logger, ready: make(chan struct{}), stopping: make(chan struct{})}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.limits = httpparse.DefaultLimits
	s.limits.MaxTarget = opts.MaxPathBytes
	s.conns.init(opts.MaxConns, opts.MaxConnsPerIP, opts.IPv6Prefix)
	s.initH2Bodies()
	s.m = newServerMetrics(s)
	s.proxy.init(opts.Proxies, s.m.set)
	s.initMisses()
	s.workers = fw.NewWorkers()
	s.xhost = s.exchangeHost()
	s.routes.Store(&routeTable{})
	s.SetUpstreams(opts.Upstream, opts.Routes, opts.Groups...)
	s.rules.Store(rules)
	s.clock.init(opts.Now, &s.date)
	s.handler = &handler{srv: s}
	return s
}

// Swap replaces the rule set; requests parsed after it returns use the new
// one. It then has every event loop forget what its Match kept of the old
// set (the packed table or rule of its last answer, regex candidates),
// waiting for them up to a second: a loop that gets no request after a
// reload would otherwise keep a million-rule set alive until it does, and
// the garbage collection after a reload would find the old set still in
// use (settled RSS grew by a whole set per reload, 121 to 340 MiB in two).
// The loop's condition view goes too: it points at the set of the last
// request, which kept a million-rule set resident after a SIGHUP until
// the next request came (RSS 5 s after the reload 1.9x that after start).
func (s *Server) Swap(rules *matcher.Set) {
	s.rules.Store(rules)
	// Nothing a loop keeps between requests is to hold the old rules:
	// a loop idle after the swap would keep them in memory (a site's
	// large map, tens of MiB) until its next request.
	s.onLoops(func(l *loop) {
		l.match, l.cond = matcher.Match{}, condReq{}
		l.phase.forget()
	})
}

// Rules returns the rule set in use.
func (s *Server) Rules() *matcher.Set { return s.rules.Load() }

// Ready is closed once the listeners accept connections.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr returns the traffic address, with the port resolved; valid after
// Ready is closed.
func (s *Server) Addr() string { return s.addr }

// Run listens and serves until Stop is called or the listener fails. It
// returns nil after Stop.
func (s *Server) Run() error {
	addr, err := resolveListen(s.opts.Listen)
	if err != nil {
		return err
	}
	s.addr = addr
	if !s.opts.Takeover {
		if err := checkFree(addr); err != nil {
			return err
		}
	}
	if s.opts.TLS != nil {
		if err := s.listenTLS(); err != nil {
			return err
		}
		go func() {
			defer safego.Recover("tls listener")
			select {
			case <-s.ready:
				s.tls.Serve()
			case <-s.stopping:
			}
		}()
	}
	s.procs.start(s.opts.EventLoops)
	err = gnet.Run(s.handler, "tcp://"+addr,
		gnet.WithNumEventLoop(s.opts.EventLoops),
		// Each loop gets its own listening socket, so the kernel spreads
		// connections and no loop accepts for the others.
		gnet.WithReusePort(true),
		// As nginx and Go's listeners: a restart or a new instance may
		// bind beside the TIME_WAIT connections another program's
		// listener left on the port (for a minute); a second listener is
		// still refused (checkFree, and the kernel: SO_REUSEADDR lets
		// no two TCP listeners share a port).
		gnet.WithReuseAddr(true),
		gnet.WithTicker(true),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithLogger(gnetLogger{s.log}),
	)
	s.procs.stop()
	if err != nil {
		return fmt.Errorf("cannot serve on %s: %w", addr, err)
	}
	return nil
}

// Shutdown drains the server, then stops it: the listening sockets are
// closed at once (so new connections go to another instance on the same
// port, or are refused), answers from now on carry Connection: close, idle
// keep-alive connections are closed by the next sweep, and requests in
// flight (forwarded ones included) are answered. It stops when no
// connection is left or ctx ends, whichever is first.
func (s *Server) Shutdown(ctx context.Context) error {
	s.draining.Store(true)
	if s.tls != nil {
		s.tls.StopAccepting()
	}
	if err := s.stopAccepting(); err != nil {
		s.log.Warn("cannot close the listeners before draining; new connections are served until the end", "err", err)
	}
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	for s.conns.total.Load() > 0 {
		select {
		case <-ctx.Done():
			s.log.Warn("shutdown timeout: closing the connections left", "connections", s.conns.total.Load())
			s.flushLogs()
			return s.Stop(context.Background())
		case <-t.C:
		}
	}
	s.flushLogs()
	return s.Stop(context.Background())
}

// flushLogs has every loop hand its access-log lines to the writer, so
// that closing the log after Stop loses none.
func (s *Server) flushLogs() {
	if s.opts.AccessLog == nil {
		return
	}
	s.onLoops(func(l *loop) { l.alog.Flush() })
}

// onLoops runs f on every event loop and waits for them, up to a second (a
// loop busy with a long read still gets to it, later).
func (s *Server) onLoops(f func(*loop)) {
	var wg sync.WaitGroup
	s.handler.loops.Range(func(_, v any) bool {
		l := v.(*loop)
		wg.Add(1)
		err := l.el.Execute(context.Background(), gnet.RunnableFunc(func(context.Context) error {
			defer wg.Done()
			defer s.recoverTask()
			f(l)
			return nil
		}))
		if err != nil {
			wg.Done()
		}
		return true
	})
	done := make(chan struct{})
	safego.Go("stop wait", func() { wg.Wait(); close(done) })
	select {
	case <-done:
	case <-time.After(time.Second):
	}
}

// Readiness reports why the server cannot take traffic, or nil.
func (s *Server) Readiness() error {
	select {
	case <-s.ready:
	default:
		return errors.New("listeners not up yet")
	}
	if s.draining.Load() {
		return errors.New("draining for shutdown")
	}
	return nil
}

// Stop closes the listeners and every connection and makes Run return.
func (s *Server) Stop(ctx context.Context) error {
	select {
	case <-s.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.stopOnce.Do(func() { close(s.stopping) })
	s.engMu.Lock()
	eng := s.eng
	s.engMu.Unlock()
	if s.tls != nil {
		s.tls.Stop(ctx)
	}
	if err := eng.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// sendTimeout is how long a write to a client may make no progress: the
// longest send_timeout of the upstream groups when forwarding, else the
// idle timeout.
func (s *Server) sendTimeout() time.Duration {
	if t := s.routes.Load(); len(t.groups) > 0 {
		return t.sendTimeout
	}
	return s.opts.IdleTimeout
}

// gnetLogger routes gnet's messages to slog; gnet's default is zap on
// stdout.
type gnetLogger struct{ l *slog.Logger }

func (g gnetLogger) Debugf(format string, args ...any) {
	g.l.Debug(fmt.Sprintf(format, args...), "from", "gnet")
}
func (g gnetLogger) Infof(format string, args ...any) {
	g.l.Debug(fmt.Sprintf(format, args...), "from", "gnet")
}
func (g gnetLogger) Warnf(format string, args ...any) {
	g.l.Warn(fmt.Sprintf(format, args...), "from", "gnet")
}
func (g gnetLogger) Errorf(format string, args ...any) {
	g.l.Error(fmt.Sprintf(format, args...), "from", "gnet")
}
func (g gnetLogger) Fatalf(format string, args ...any) {
	g.l.Error(fmt.Sprintf(format, args...), "from", "gnet")
}
