package tlsport

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/internal/safego"
)

// Handler is what serves a Listener's connections: the engine's handler,
// with what it knows of a connection that the TLS layer asks about. Its
// methods are called with the connection's Loop locked, except
// WaitsProxyHeader, HeaderTimeout, SendTimeout, SendTimedOut and ServeH2.
type Handler interface {
	// OnOpen, OnTraffic and OnClose are gnet's EventHandler callbacks.
	OnOpen(c gnet.Conn) (out []byte, action gnet.Action)
	OnTraffic(c gnet.Conn) gnet.Action
	OnClose(c gnet.Conn, err error) gnet.Action
	// WaitsProxyHeader reports whether c must send a PROXY protocol
	// header before its handshake; ProxyHeader reads it from in (all
	// that came so far), done once it is whole.
	WaitsProxyHeader(c *Conn) bool
	ProxyHeader(c *Conn, in []byte) (done bool, action gnet.Action)
	// Forwarding reports whether c's request is being forwarded (then
	// the connection stops reading past tlsMaxPending).
	Forwarding(c *Conn) bool
	// IdleFrom starts c's idle timeout over, extra from now.
	IdleFrom(c *Conn, extra time.Duration)
	// HeaderTimeout bounds the wait for a PROXY header; SendTimeout each
	// write to the client, SendTimedOut counting a write that ran past it.
	HeaderTimeout() time.Duration
	SendTimeout() time.Duration
	SendTimedOut()
	// ServeH2 serves c, which negotiated h2, until it ends, tearing it
	// down then (Conn.Teardown).
	ServeH2(c *Conn)
}

// Options configure a Listener.
type Options struct {
	// Config gives the certificates, versions, ALPN and session tickets.
	Config *tls.Config
	// HandshakeTimeout bounds the handshake.
	HandshakeTimeout time.Duration
	// Handshake, when set, is called after every handshake, err nil or
	// not (for metrics); it runs on the connection's goroutine.
	Handshake func(state *tls.ConnectionState, err error)
	// Loops is how many Loops the connections are spread over (at least 1).
	Loops int
	// Log takes the accept errors.
	Log *slog.Logger
}

// Listener accepts TLS connections and runs each on goroutines of its
// own (Conn), spread over Loops.
//
// Why not the event loops: gnet has no TLS, and a TLS record layer on top
// of its callbacks would be a second TLS implementation. Why not a bridge
// into gnet (a socket pair per connection, plaintext on the other end):
// every request would cross the kernel twice more, two more system calls
// each way. A goroutine per connection reads and decrypts with crypto/tls
// and hands the plaintext to the same handler the loops call.
type Listener struct {
	h     Handler
	opts  Options
	ln    net.Listener
	loops []*Loop
	next  atomic.Uint32
	// wg counts the connections' goroutines, so that Stop returns after
	// their OnClose.
	wg     sync.WaitGroup
	closed atomic.Bool
}

// New serves ln's connections with h once Serve is called.
func New(ln net.Listener, o Options, h Handler) *Listener {
	t := &Listener{h: h, opts: o, ln: ln}
	for range max(1, o.Loops) {
		t.loops = append(t.loops, &Loop{})
	}
	return t
}

// Addr is the listener's address.
func (t *Listener) Addr() net.Addr { return t.ln.Addr() }

// Serve accepts connections until the listener is closed.
func (t *Listener) Serve() {
	for {
		nc, err := t.ln.Accept()
		if err != nil {
			if t.closed.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors or memory: wait rather than spin.
			t.opts.Log.Warn("TLS accept failed", "err", err)
			time.Sleep(acceptRetry)
			continue
		}
		// TCP_NODELAY is on already: Go sets it on every TCP connection.
		c := newConn(t, t.loops[t.next.Add(1)%uint32(len(t.loops))], nc)
		t.wg.Add(1)
		go c.run()
	}
}

// StopAccepting closes the listener; connections go on.
func (t *Listener) StopAccepting() {
	if t.closed.Swap(true) {
		return
	}
	t.ln.Close()
}

// Stop closes the listener and every connection, and waits for their
// goroutines up to ctx.
func (t *Listener) Stop(ctx context.Context) {
	t.StopAccepting()
	for _, tl := range t.loops {
		tl.Lock()
		for c := range tl.conns {
			c.Close()
			c.raw.SetWriteDeadline(time.Unix(1, 0)) // a write to a slow client too
		}
		tl.Unlock()
	}
	done := make(chan struct{})
	safego.Go("tls stop wait", func() { t.wg.Wait(); close(done) })
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Loop stands in for a gnet event loop for the TLS connections given to
// it: whatever gnet runs on a loop (OnOpen, OnTraffic, OnClose, AsyncWrite
// callbacks, the deadline sweep) runs for these with mu held, so the
// handler's per-loop state (the loop struct) is used by one goroutine at a
// time as it is on a gnet loop. The work done with mu held is the loop's:
// parsing and answering, no I/O; writes to the network are made after it
// is released (Conn.flush).
type Loop struct {
	mu sync.Mutex
	// held is set while mu is held by lock: a connection's AsyncWrite
	// called then may be on the loop itself, and must not wait for it.
	held  atomic.Bool
	conns map[*Conn]struct{}
}

func (tl *Loop) Lock() {
	tl.mu.Lock()
	tl.held.Store(true)
}

func (tl *Loop) Unlock() {
	tl.held.Store(false)
	tl.mu.Unlock()
}

var errUnsupported = errors.New("not supported on a TLS connection")

func (tl *Loop) Register(context.Context, net.Addr) (<-chan gnet.RegisteredResult, error) {
	return nil, errUnsupported
}

func (tl *Loop) Enroll(context.Context, net.Conn) (<-chan gnet.RegisteredResult, error) {
	return nil, errUnsupported
}

// Execute runs r with the loop's lock held, on a goroutine of its own, as
// gnet runs it later on the loop.
func (tl *Loop) Execute(ctx context.Context, r gnet.Runnable) error {
	go func() {
		defer safego.Recover("tls sweep")
		tl.Lock()
		r.Run(ctx)
		// The sweep may have written (a 408) or ended a forward: what it
		// wrote is flushed, and a connection holding off reading looks
		// again.
		var dirty []*Conn
		for c := range tl.conns {
			if len(c.out) > 0 || c.shutWrite {
				dirty = append(dirty, c)
			}
			if c.waiting {
				c.kick()
			}
		}
		tl.Unlock()
		for _, c := range dirty {
			go c.flushGo()
		}
	}()
	return nil
}

func (tl *Loop) Schedule(context.Context, gnet.Runnable, time.Duration) error {
	return errUnsupported
}

// Close closes c, as gnet's loop Close does.
func (tl *Loop) Close(c gnet.Conn) error { return c.Close() }
