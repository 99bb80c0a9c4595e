package admin

import (
	"github.com/redirectd/redirectd/engine/admin/edit"

	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redirectd/redirectd/internal/safego"
)

// DefaultListen is where the admin server listens when admin.listen is
// not set: loopback only, so it needs no token.
const DefaultListen = "127.0.0.1:9180"

// Timeouts and limits of the admin http.Server. Without them a client that
// opens connections and sends nothing (or trickles a header) would hold a
// goroutine and a socket for ever. WriteTimeout is the longest, for a
// /metrics body of many rules to a slow scraper.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 60 * time.Second
	maxHeaderBytes    = 64 << 10
)

// Options configure the admin server: the admin table of the config.
type Options struct {
	Listen string // host:port; "" means DefaultListen
	Token  string // when set, required as a Bearer token everywhere but /healthz
	// Tokens are named tokens with roles ([[admin.tokens]]); with any,
	// as with Token, every endpoint but the probes needs one of them.
	Tokens []Token
	// MaxUploadBytes bounds the body of POST /drafts/{id}/upload
	// (DefaultMaxUploadBytes when 0).
	MaxUploadBytes int64
	// Pages, when set, makes the web console: New calls it once with
	// the server and mounts what it returns at / and /ui/, which need no
	// Bearer token (the console signs people in with its own cookie) but
	// keep the loopback Host rule and CrossOriginProtection.
	Pages func(*Server) http.Handler
	// Wait, when not nil, holds every request until it is closed: the
	// daemon hashes the files of the version serving once its
	// listeners answer, and /versions, /ruleset and the rest need it.
	Wait <-chan struct{}
}

// DefaultMaxUploadBytes bounds an upload to a draft unless
// Options.MaxUploadBytes says otherwise.
const DefaultMaxUploadBytes = 256 << 20

// hasTokens reports whether requests must carry a token.
func (o *Options) hasTokens() bool { return o.Token != "" || len(o.Tokens) > 0 }

// Server is the admin HTTP server. New checks the options, Start listens,
// Shutdown stops it. A Server is started at most once.
type Server struct {
	opts Options
	b    Backend
	h    http.Handler
	srv  *http.Server
	// token holds the hashes of the tokens taken, when there are
	// any (SetToken).
	token atomic.Pointer[tokenTable]
	// pages is the web console (Options.Pages), nil without one.
	pages http.Handler

	// edit is the editing model over b: drafts and versions, which
	// the JSON endpoints and the console both ask (Edit).
	edit *edit.Service
	// ops are the promotes run apart from their requests.
	ops operations

	mu      sync.Mutex
	ln      net.Listener // set by Start
	started bool         // Start or Shutdown was called
}

// New checks opts and returns a server that is not listening yet. It
// refuses (ErrTokenRequired) an address that is not loopback when no
// token is set, a token that could not be sent as a Bearer credential
// (ErrBadToken), and an address that is not host:port (ErrBadListen).
func New(opts Options, b Backend) (*Server, error) {
	if b == nil {
		return nil, errNilBackend
	}
	if opts.Listen == "" {
		opts.Listen = DefaultListen
	}
	if err := Check(opts); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, b: b, edit: edit.NewService(b)}
	s.ops.wait = func() <-chan time.Time { return time.After(promptWait) }
	if opts.hasTokens() {
		s.token.Store(newTokenTable(opts.Token, opts.Tokens))
	}
	if s.opts.MaxUploadBytes <= 0 {
		s.opts.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if opts.Pages != nil {
		s.pages = opts.Pages(s)
	}
	s.h = s.routes()
	s.srv = &http.Server{
		Handler:           s.h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
	return s, nil
}

// Start listens on the configured address and serves on a new goroutine.
// It returns the listen error (address in use, permission denied) itself,
// so the command can fail at start-up rather than log it later.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errStarted
	}
	ln, err := net.Listen("tcp", s.opts.Listen)
	if err != nil {
		return listenError(s.opts.Listen, err)
	}
	s.started, s.ln = true, ln
	// Serve returns ErrServerClosed after Shutdown; any other error is an
	// accept failure that net/http already retried, and there is no one
	// left to return it to.
	safego.Go("admin listener", func() { s.srv.Serve(ln) })
	return nil
}

// Adopt listens on addr as well and serves there, then closes the
// listener it had: a process started with a temporary admin address
// (serve -upgrade -admin-listen) takes the configured one back once the
// instance it replaces has let it go. The old address answers the
// requests already accepted there.
func (s *Server) Adopt(addr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started || s.ln == nil {
		return errNotStarted
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return listenError(addr, err)
	}
	old := s.ln
	s.ln, s.opts.Listen = ln, addr
	safego.Go("admin listener", func() { s.srv.Serve(ln) })
	old.Close()
	return nil
}

// Addr returns the address the server listens on, with port 0 resolved to
// the port the system chose; before Start, the configured address.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return s.opts.Listen
	}
	return s.ln.Addr().String()
}

// Handler returns the server's handler, token check included, for tests
// that do not need a listener.
func (s *Server) Handler() http.Handler { return s.h }

// Shutdown stops listening and waits for requests in flight to finish,
// until ctx is done (http.Server.Shutdown). A server never started is
// simply marked closed.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.started = true // no Start after Shutdown
	s.ln = nil       // nor Adopt
	s.mu.Unlock()
	return s.srv.Shutdown(ctx)
}
