package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// Options configure a Server.
type Options struct {
	// Listen is the traffic address, host:port. Port 0 picks a free port,
	// which Addr then reports.
	Listen string
	// EventLoops is the number of event loops; 0 means one per CPU.
	EventLoops int
	// Logger receives the server's and gnet's messages; nil discards them.
	Logger *slog.Logger
}

// Server is the traffic listener. Create it with New, start it with Run.
type Server struct {
	opts   Options
	addr   string
	loops  int
	log    *slog.Logger
	rules  atomic.Pointer[matcher.Set]
	date   dateHeader
	limits httpparse.Limits

	handler *handler
	ready   chan struct{}
	engMu   sync.Mutex
	eng     gnet.Engine
	started bool
}

// New returns a server that will answer from rules.
func New(opts Options, rules *matcher.Set) *Server {
	s := &Server{opts: opts, log: opts.Logger, limits: httpparse.DefaultLimits, ready: make(chan struct{})}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.loops = opts.EventLoops
	if s.loops <= 0 {
		s.loops = runtime.GOMAXPROCS(0)
	}
	s.rules.Store(rules)
	s.date.update(time.Now())
	s.handler = &handler{srv: s}
	return s
}

// Swap replaces the rule set; requests parsed after it returns use the new
// one.
func (s *Server) Swap(rules *matcher.Set) { s.rules.Store(rules) }

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
	err = gnet.Run(s.handler, "tcp://"+addr,
		gnet.WithNumEventLoop(s.loops),
		// Each loop gets its own listening socket, so the kernel spreads
		// connections and no loop accepts for the others.
		gnet.WithReusePort(true),
		gnet.WithTicker(true),
		gnet.WithTCPNoDelay(gnet.TCPNoDelay),
		gnet.WithLogger(gnetLogger{s.log}),
	)
	if err != nil {
		return fmt.Errorf("cannot serve on %s: %w", addr, err)
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
	s.engMu.Lock()
	eng := s.eng
	s.engMu.Unlock()
	if err := eng.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// resolveListen checks addr and replaces port 0 with a free port: with
// SO_REUSEPORT every loop binds its own socket, and port 0 would give each
// a different one.
func resolveListen(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("cannot use listen address %q: %w; write host:port, such as 127.0.0.1:8080", addr, err)
	}
	if port != "0" {
		return addr, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", fmt.Errorf("cannot find a free port on %q: %w", host, err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
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
