package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/internal/safego"
	"golang.org/x/sys/unix"
)

// TLSOptions configure the TLS listener. Its connections are served by the
// same handler as the plain port's: the same parser, rules, answers,
// limits, timeouts, forwarding and access log (see tlsConn).
type TLSOptions struct {
	// Listen is the TLS address, in any form net.Listen takes.
	Listen string
	// Config gives the certificates (GetCertificate), versions, ALPN and
	// session tickets.
	Config *tls.Config
	// HandshakeTimeout bounds the handshake: a slow one holds a
	// connection and a goroutine like a slow head does. Default 10s.
	HandshakeTimeout time.Duration
	// HSTS, when set, is the Strict-Transport-Security value every answer
	// on the TLS port carries, forwarded ones included.
	HSTS string
	// HTTP2 bounds the connections that negotiate h2 (engine/h2); its
	// IdleTimeout defaults to the server's, its PrefaceTimeout and
	// BodyTimeout to the header timeout, its SendTimeout to send_timeout,
	// the rest to h2's defaults (http2Options). Whether h2 is offered is
	// the Config's NextProtos.
	HTTP2 h2.Options
	// Handshake, when set, is called after every handshake, err nil or
	// not (for metrics); it runs on the connection's goroutine.
	Handshake func(state *tls.ConnectionState, err error)
}

// DefaultHandshakeTimeout is TLSOptions.HandshakeTimeout's default.
const DefaultHandshakeTimeout = 10 * time.Second

// tlsListener accepts TLS connections and runs each on goroutines of its
// own (tlsConn), spread over tlsLoops.
//
// Why not the event loops: gnet has no TLS, and a TLS record layer on top
// of its callbacks would be a second TLS implementation. Why not a bridge
// into gnet (a socket pair per connection, plaintext on the other end):
// every request would cross the kernel twice more, two more system calls
// each way. A goroutine per connection reads and decrypts with crypto/tls
// and hands the plaintext to the same handler the loops call.
type tlsListener struct {
	s     *Server
	opts  TLSOptions
	ln    net.Listener
	loops []*tlsLoop
	next  atomic.Uint32
	// wg counts the connections' goroutines, so that Stop returns after
	// their OnClose.
	wg     sync.WaitGroup
	closed atomic.Bool
	hsts   string
}

// listenTLS opens the TLS listener; its accept loop starts with serveTLS.
// SO_REUSEPORT lets a new instance bind the port during an upgrade, as the
// plain port does; DeferAccept sets TCP_DEFER_ACCEPT as there
// (deferTLSAccept).
func (s *Server) listenTLS() error {
	o := *s.opts.TLS
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	o.HTTP2 = s.http2Options()
	if o.Config == nil {
		return errors.New("tls: no TLS configuration")
	}
	addr, err := resolveListen(o.Listen)
	if err != nil {
		return err
	}
	if !s.opts.Takeover {
		if err := checkFree(addr); err != nil {
			return err
		}
	}
	lc := net.ListenConfig{
		Control: func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) {
				serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
				if s.opts.DeferAccept && serr == nil {
					serr = deferTLSAccept(int(fd))
				}
			})
			return errors.Join(err, serr)
		},
		// No TCP keep-alive probes, as on the plain port (gnet sets
		// none) and in nginx by default: idle_timeout closes an idle
		// connection long before a probe would find it dead, and Go's
		// default of 15 s probes costs four setsockopt calls per
		// accepted connection.
		KeepAlive: -1,
	}
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot serve TLS on %s: %w", addr, err)
	}
	t := &tlsListener{s: s, opts: o, ln: ln}
	if o.HSTS != "" {
		t.hsts = "Strict-Transport-Security: " + o.HSTS + "\r\n"
	}
	for range max(1, s.opts.EventLoops) {
		t.loops = append(t.loops, &tlsLoop{})
	}
	s.tls = t
	return nil
}

// TLSAddr returns the TLS address with the port resolved, or "" without a
// TLS listener; valid after Ready is closed.
func (s *Server) TLSAddr() string {
	if s.tls == nil {
		return ""
	}
	return s.tls.ln.Addr().String()
}

// serve accepts connections until the listener is closed.
func (t *tlsListener) serve() {
	for {
		nc, err := t.ln.Accept()
		if err != nil {
			if t.closed.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors or memory: wait rather than spin.
			t.s.log.Warn("TLS accept failed", "err", err)
			time.Sleep(5 * time.Millisecond)
			continue
		}
		// TCP_NODELAY is on already: Go sets it on every TCP connection.
		c := newTLSConn(t, t.loops[t.next.Add(1)%uint32(len(t.loops))], nc)
		t.wg.Add(1)
		go c.run()
	}
}

// stopAccepting closes the listener; connections go on.
func (t *tlsListener) stopAccepting() {
	if t.closed.Swap(true) {
		return
	}
	t.ln.Close()
}

// stop closes the listener and every connection, and waits for their
// goroutines up to ctx.
func (t *tlsListener) stop(ctx context.Context) {
	t.stopAccepting()
	for _, tl := range t.loops {
		tl.lock()
		for c := range tl.conns {
			c.Close()
			c.raw.SetWriteDeadline(time.Unix(1, 0)) // a write to a slow client too
		}
		tl.unlock()
	}
	done := make(chan struct{})
	safego.Go("tls stop wait", func() { t.wg.Wait(); close(done) })
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// tlsLoop stands in for a gnet event loop for the TLS connections given to
// it: whatever gnet runs on a loop (OnOpen, OnTraffic, OnClose, AsyncWrite
// callbacks, the deadline sweep) runs for these with mu held, so the
// handler's per-loop state (the loop struct) is used by one goroutine at a
// time as it is on a gnet loop. The work done with mu held is the loop's:
// parsing and answering, no I/O; writes to the network are made after it
// is released (tlsConn.flush).
type tlsLoop struct {
	mu sync.Mutex
	// held is set while mu is held by lock: a connection's AsyncWrite
	// called then may be on the loop itself, and must not wait for it.
	held  atomic.Bool
	conns map[*tlsConn]struct{}
}

func (tl *tlsLoop) lock() {
	tl.mu.Lock()
	tl.held.Store(true)
}

func (tl *tlsLoop) unlock() {
	tl.held.Store(false)
	tl.mu.Unlock()
}

var errUnsupported = errors.New("not supported on a TLS connection")

func (tl *tlsLoop) Register(context.Context, net.Addr) (<-chan gnet.RegisteredResult, error) {
	return nil, errUnsupported
}

func (tl *tlsLoop) Enroll(context.Context, net.Conn) (<-chan gnet.RegisteredResult, error) {
	return nil, errUnsupported
}

// Execute runs r with the loop's lock held, on a goroutine of its own, as
// gnet runs it later on the loop.
func (tl *tlsLoop) Execute(ctx context.Context, r gnet.Runnable) error {
	go func() {
		defer safego.Recover("tls sweep")
		tl.lock()
		r.Run(ctx)
		// The sweep may have written (a 408) or ended a forward: what it
		// wrote is flushed, and a connection holding off reading looks
		// again.
		var dirty []*tlsConn
		for c := range tl.conns {
			if len(c.out) > 0 || c.shutWrite {
				dirty = append(dirty, c)
			}
			if c.waiting {
				c.kick()
			}
		}
		tl.unlock()
		for _, c := range dirty {
			go c.flushGo()
		}
	}()
	return nil
}

func (tl *tlsLoop) Schedule(context.Context, gnet.Runnable, time.Duration) error {
	return errUnsupported
}

// Close closes c, as gnet's loop Close does.
func (tl *tlsLoop) Close(c gnet.Conn) error { return c.Close() }
