package tlsport

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/internal/safego"
)

// Conn is a TLS connection dressed as a gnet.Conn, so that the engine's
// handler serves it with the code that serves the plain port: OnOpen,
// OnTraffic and OnClose are called as gnet calls them, with the
// connection's Loop locked in place of running on an event loop.
//
// Its goroutine (run) does the handshake, then reads, decrypts and hands
// each read to OnTraffic. What the handler writes is buffered (out) and
// written by flush once the loop's lock is released, by whichever
// goroutine wrote it: the connection's own after OnTraffic, a forward's
// after AsyncWrite. A write that makes no progress for the send timeout
// fails and closes the connection, as the loop's sweep closes a plain one.
type Conn struct {
	t   *Listener
	tl  *Loop
	raw net.Conn
	tc  *tls.Conn
	ctx any

	// in is the inbound buffer (with tl.mu held); Discard reslices it, so
	// that slices of it handed out by Peek stay valid until the next read.
	in, inBase []byte
	// out is what the handler wrote and flush has not taken (tl.mu).
	out, spare []byte
	// flushing is set while a goroutine writes (tl.mu); flushed is
	// signalled when it stops, for the teardown's last flush.
	flushing bool
	flushed  *sync.Cond
	// inflight is what the flushing goroutine took and the socket has not
	// yet accepted, as far as the raw writes tell (progress).
	inflight atomic.Int64
	// closeReq asks the connection's goroutine to close; shutWrite asks
	// the flush to end the write side once out is empty (a lingering
	// close); gone is set once OnClose ran (tl.mu).
	closeReq  atomic.Bool
	shutWrite bool
	gone      bool
	// writeErr is set when a write failed: the connection is closing.
	writeErr atomic.Bool
	// peerClosed: the client closed its HTTP/2 connection (set by its
	// goroutine before teardown), so teardown sends no close_notify.
	peerClosed bool
	// waiting is set while the connection's goroutine holds off reading
	// (tl.mu): a forward has more than tlsMaxPending of the client's bytes
	// waiting. room wakes it (kick).
	waiting bool
	room    chan struct{}
}

func newConn(t *Listener, tl *Loop, nc net.Conn) *Conn {
	c := &Conn{t: t, tl: tl}
	c.raw = &progressConn{Conn: nc, c: c}
	c.flushed = sync.NewCond(&tl.mu)
	c.room = make(chan struct{}, 1)
	return c
}

// tlsReadBufs holds the serving buffers of connections that went quiet.
var tlsReadBufs = sync.Pool{New: func() any { b := make([]byte, tlsReadSize); return &b }}

func (c *Conn) run() {
	defer safego.Recover("tls connection")
	defer c.t.wg.Done()
	h := c.t.h
	c.tl.Lock()
	_, act := h.OnOpen(c)
	opened := act != gnet.Close && c.ctx != nil
	if opened {
		if c.tl.conns == nil {
			c.tl.conns = make(map[*Conn]struct{})
		}
		c.tl.conns[c] = struct{}{}
	}
	c.tl.Unlock()
	if !opened {
		c.raw.Close()
		return
	}
	if h.WaitsProxyHeader(c) && !c.readProxyHeader() {
		c.teardown()
		return
	}
	c.tl.Lock()
	c.tc = tls.Server(c.raw, c.t.opts.Config)
	c.tl.Unlock()
	// The handshake counts toward the connection limits (OnOpen above) and
	// has a deadline of its own: a slow handshake is slowloris too.
	ctx, cancel := context.WithTimeout(context.Background(), c.t.opts.HandshakeTimeout)
	c.idleFrom(c.t.opts.HandshakeTimeout)
	err := c.tc.HandshakeContext(ctx)
	cancel()
	c.idleFrom(0)
	if c.t.opts.Handshake != nil {
		st := c.tc.ConnectionState()
		c.t.opts.Handshake(&st, err)
	}
	// A TLS-ALPN-01 challenge ends with the handshake (RFC 8737 3).
	if err != nil || c.tc.ConnectionState().NegotiatedProtocol == "acme-tls/1" {
		c.teardown()
		return
	}
	if c.tc.ConnectionState().NegotiatedProtocol == "h2" {
		h.ServeH2(c) // the engine's h2conn.go, then engine/h2bridge
		return
	}
	// The handshake grew this goroutine's stack to 16 KiB: the
	// connection waits for its first request on a fresh one.
	c.wait(h, false)
}

// idleFrom starts the connection's idle_timeout over, extra from now:
// the handshake has a deadline of its own, and one that waits for an
// on-demand certificate can take most of it; counted as idle time, it
// would close the connection before or just after the handshake, and
// leave the client no time to send its request.
func (c *Conn) idleFrom(extra time.Duration) {
	c.tl.Lock()
	c.t.h.IdleFrom(c, extra)
	c.tl.Unlock()
}

// wait has a fresh goroutine wait for the connection's next request, and
// serve it. After a quiet hand-over (woken) it waits on the raw socket
// (waitReadable), holding no buffer, with the stack it started with;
// the first wait, after the handshake, reads through crypto/tls with a
// tlsWaitSize buffer, since crypto/tls may hold the client's first
// records already.
func (c *Conn) wait(h Handler, woken bool) {
	c.t.wg.Add(1)
	go func() {
		defer safego.Recover("tls connection")
		defer c.t.wg.Done()
		if woken {
			c.waitReadable()
		}
		if c.readLoop(h, woken) {
			c.wait(h, true)
			return
		}
		c.teardown()
	}()
}

// readLoop reads and serves until the connection is to close (false), or
// until it has served and then read nothing for tlsQuiet (true: wait on a
// fresh goroutine). woken: the socket has bytes already, so the serving
// buffer is taken at once.
func (c *Conn) readLoop(h Handler, woken bool) (quiet bool) {
	var buf []byte
	var serving *[]byte
	if woken {
		serving = tlsReadBufs.Get().(*[]byte)
		buf = *serving
	} else {
		buf = make([]byte, tlsWaitSize)
	}
	defer func() {
		if serving != nil {
			tlsReadBufs.Put(serving)
		}
	}()
	var armed time.Time
	for !c.closeReq.Load() {
		// The deadline is moved at most twice per tlsQuiet, not on every
		// read, so a busy connection seldom touches its timer; it goes
		// quiet after between half of tlsQuiet and all of it. It is set
		// before closeReq is looked at: requestClose sets closeReq and
		// then a deadline in the past, which this one cannot undo.
		if now := time.Now(); serving != nil && now.Sub(armed) >= tlsQuiet/2 {
			c.raw.SetReadDeadline(now.Add(tlsQuiet))
			armed = now
			if c.closeReq.Load() {
				return false
			}
		}
		n, err := c.tc.Read(buf)
		if n > 0 {
			c.tl.Lock()
			if c.closeReq.Load() {
				c.tl.Unlock()
				return false
			}
			if len(c.in) == 0 {
				c.in = c.inBase[:0]
			}
			c.in = append(c.in, buf[:n]...)
			if len(c.in) == n {
				c.inBase = c.in
			}
			act := h.OnTraffic(c)
			for act != gnet.Close && c.holdBack() {
				c.waiting = true
				c.tl.Unlock()
				c.flush()
				<-c.room
				c.tl.Lock()
				c.waiting = false
			}
			c.tl.Unlock()
			if act == gnet.Close {
				return false // teardown writes the answer, with the close_notify
			}
			c.flush()
			if serving == nil {
				serving = tlsReadBufs.Get().(*[]byte)
				buf = *serving
			}
		}
		if err != nil {
			// A read deadline is not fatal to crypto/tls: the timeout is a
			// temporary net.Error, and a record read in part stays.
			var ne net.Error
			if serving == nil || !errors.As(err, &ne) || !ne.Timeout() || c.closeReq.Load() {
				return false
			}
			c.raw.SetReadDeadline(time.Time{})
			return !c.closeReq.Load()
		}
	}
	return false
}

// readProxyHeader reads the PROXY protocol header that a trusted load
// balancer sends before the TLS handshake, within the header timeout, and
// applies it as the plain port does (Handler.ProxyHeader: the client it
// names is the connection's, counted against its limit). What follows the
// header is the start of the handshake, read again by crypto/tls. It
// reports false when the connection is to be closed.
func (c *Conn) readProxyHeader() bool {
	c.raw.SetReadDeadline(time.Now().Add(c.t.h.HeaderTimeout()))
	buf := make([]byte, 512)
	for {
		n, err := c.raw.Read(buf)
		if n > 0 {
			c.tl.Lock()
			c.in = append(c.in, buf[:n]...)
			done, act := c.t.h.ProxyHeader(c, c.in)
			if done {
				c.raw.(*progressConn).pre = append([]byte(nil), c.in...)
				c.in = c.in[:0]
			}
			c.tl.Unlock()
			if act == gnet.Close {
				return false
			}
			if done {
				c.raw.SetReadDeadline(time.Time{})
				return true
			}
		}
		if err != nil {
			return false
		}
	}
}

// holdBack reports whether the connection should wait before reading more
// (tl.mu): its request is being forwarded and enough of what follows is
// buffered.
func (c *Conn) holdBack() bool {
	if c.closeReq.Load() || len(c.in) <= tlsMaxPending {
		return false
	}
	return c.t.h.Forwarding(c)
}

// kick wakes the connection's goroutine if it holds off reading, to look
// again.
func (c *Conn) kick() {
	select {
	case c.room <- struct{}{}:
	default:
	}
}

// teardown writes what is left to write, closes, and calls OnClose. What
// is left (a Connection: close answer) and the close_notify alert go out
// in one write (progressConn.hold), unless the write side was to be shut
// first (a lingering close shuts it in flush). An HTTP/2 connection the
// client closed (peerClosed) gets no close_notify, as nginx sends none
// then: it would be one more write per connection, to a socket the
// client has closed. Nor does a connection whose write failed (the send
// timeout, a reset): the client takes nothing, and the alert would hold
// this goroutine for another send timeout (nginx's ngx_ssl_shutdown
// sends none after a timeout or an error either).
func (c *Conn) teardown() {
	c.closeReq.Store(true)
	c.tl.Lock()
	for c.flushing {
		c.flushed.Wait()
		c.tl.held.Store(true)
	}
	if !c.shutWrite {
		c.raw.(*progressConn).holding.Store(true)
	}
	c.tl.Unlock()
	c.flush()
	if c.tc != nil && !c.peerClosed && !c.writeErr.Load() {
		c.tc.Close()
	} else {
		c.raw.Close()
	}
	c.tl.Lock()
	c.gone = true
	delete(c.tl.conns, c)
	c.t.h.OnClose(c, nil)
	c.tl.Unlock()
}

// flush writes out until it is empty, unless another goroutine is at it:
// that one finds what was added, since it stops only when it sees out
// empty with the lock held.
func (c *Conn) flush() {
	c.tl.Lock()
	if c.flushing {
		c.tl.Unlock()
		return
	}
	c.flushing = true
	if c.tc == nil {
		c.out = c.out[:0] // before the handshake (a 408 to a PROXY header): nothing can be sent
	}
	for len(c.out) > 0 && !c.writeErr.Load() {
		p := c.out
		c.out, c.spare = c.spare[:0], nil
		c.inflight.Store(int64(len(p)))
		c.tl.Unlock()
		_, err := c.tc.Write(p)
		c.inflight.Store(0)
		c.tl.Lock()
		c.spare = p[:0]
		if cap(c.spare) > maxKeptOut {
			c.spare = nil
		}
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() && !c.closeReq.Load() {
				c.t.h.SendTimedOut() // the client took nothing for the send timeout
			}
			c.writeErr.Store(true)
			c.out = c.out[:0]
			c.requestClose()
		}
	}
	shut := c.shutWrite && len(c.out) == 0 && !c.writeErr.Load()
	c.shutWrite = false
	c.flushing = false
	c.flushed.Broadcast()
	c.tl.Unlock()
	if shut {
		// The client sees the end of the answer before the lingering
		// read ends, as the plain port's shutdown(SHUT_WR) does.
		c.tc.CloseWrite()
		if cw, ok := c.raw.(*progressConn).Conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}
}

// requestClose has the connection's goroutine close: its read returns at
// once.
func (c *Conn) requestClose() {
	if !c.closeReq.Swap(true) {
		c.raw.SetReadDeadline(time.Unix(1, 0))
		c.kick()
	}
}

// progressConn is the TCP connection under crypto/tls: each write gets the
// send timeout as its deadline, so a client that stops reading fails the
// write, and the bytes it accepts are taken off inflight, so that
// OutboundBuffered shows progress as the plain port's does.
type progressConn struct {
	net.Conn
	c *Conn
	// pre is what was read after a PROXY protocol header: the start of
	// the handshake, returned first.
	pre []byte
	// holding, set by teardown once no flush is writing, keeps what is
	// written (up to maxHeld) in held, and Close writes it before closing:
	// the last answer and the close_notify in one write system call
	// rather than two. On loopback a write costs the sender the
	// receiver's TCP processing too; nginx writes them apart.
	holding atomic.Bool
	held    []byte
}

func (p *progressConn) Read(b []byte) (int, error) {
	if len(p.pre) > 0 {
		n := copy(b, p.pre)
		p.pre = p.pre[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// Write writes b with the send timeout, or holds it (holding). crypto/tls
// calls it with its output lock held, so held has one writer at a time.
func (p *progressConn) Write(b []byte) (int, error) {
	if p.holding.Load() {
		if len(p.held)+len(b) <= maxHeld {
			p.held = append(p.held, b...)
			return len(b), nil
		}
		if err := p.writeHeld(); err != nil {
			return 0, err
		}
	}
	return p.write(b)
}

func (p *progressConn) write(b []byte) (int, error) {
	p.Conn.SetWriteDeadline(time.Now().Add(p.c.t.h.SendTimeout()))
	n, err := p.Conn.Write(b)
	if v := p.c.inflight.Add(-int64(n)); v < 0 {
		p.c.inflight.Store(0) // records are bigger than their plaintext
	}
	return n, err
}

// writeHeld writes what holding kept.
func (p *progressConn) writeHeld() error {
	b := p.held
	p.held = nil
	if len(b) == 0 {
		return nil
	}
	_, err := p.write(b)
	return err
}

// Close writes what holding kept and closes. crypto/tls calls it after
// its close_notify, which no write can follow.
func (p *progressConn) Close() error {
	werr := p.writeHeld()
	return errors.Join(werr, p.Conn.Close())
}

// The gnet.Conn methods the handler uses, with gnet's meaning. Those
// marked "loop" are called with tl.mu held.

// Peek returns the inbound buffer (loop).
func (c *Conn) Peek(n int) ([]byte, error) {
	if n < 0 || n > len(c.in) {
		return c.in, nil
	}
	return c.in[:n], nil
}

// Next returns and discards n bytes (loop).
func (c *Conn) Next(n int) ([]byte, error) {
	b, _ := c.Peek(n)
	c.in = c.in[len(b):]
	return b, nil
}

// Discard drops n buffered bytes, all of them for n <= 0 as gnet does
// (loop).
func (c *Conn) Discard(n int) (int, error) {
	if n <= 0 || n > len(c.in) {
		n = len(c.in)
	}
	c.in = c.in[n:]
	if c.waiting {
		c.kick()
	}
	return n, nil
}

// InboundBuffered is what is buffered and not discarded (loop).
func (c *Conn) InboundBuffered() int { return len(c.in) }

// Write buffers p for flush (loop).
func (c *Conn) Write(p []byte) (int, error) {
	if c.writeErr.Load() || c.gone {
		return 0, net.ErrClosed
	}
	c.out = append(c.out, p...)
	return len(p), nil
}

// Writev is Write of each (loop).
func (c *Conn) Writev(bs [][]byte) (n int, err error) {
	for _, b := range bs {
		m, err := c.Write(b)
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// Flush is a no-op: flush runs when the loop's lock is released.
func (c *Conn) Flush() error { return nil }

// OutboundBuffered is what is written and not yet taken by the socket
// (loop).
func (c *Conn) OutboundBuffered() int { return len(c.out) + int(c.inflight.Load()) }

// AsyncWrite writes p from any goroutine and then calls callback with the
// loop's lock held, as gnet calls it on the loop. It writes on the
// calling goroutine (a forward's), which the write holds back while the
// client is slow to read: that is the forward's flow control.
func (c *Conn) AsyncWrite(p []byte, callback gnet.AsyncCallback) error {
	if c.tl.held.Load() {
		// Called on the loop (or while it is busy with another
		// connection): gnet queues the write for later; so does this.
		go c.asyncWriteGo(p, callback)
		return nil
	}
	c.asyncWrite(p, callback)
	return nil
}

// asyncWriteGo is asyncWrite on a goroutine of its own, and flushGo
// flush: a panic there is recovered rather than ending the process.
func (c *Conn) asyncWriteGo(p []byte, callback gnet.AsyncCallback) {
	defer safego.Recover("tls write")
	c.asyncWrite(p, callback)
}

func (c *Conn) flushGo() {
	defer safego.Recover("tls flush")
	c.flush()
}

func (c *Conn) asyncWrite(p []byte, callback gnet.AsyncCallback) {
	c.tl.Lock()
	_, err := c.Write(p)
	c.tl.Unlock()
	c.flush()
	if callback != nil {
		c.tl.Lock()
		if c.gone || c.writeErr.Load() {
			err = net.ErrClosed
		}
		callback(c, err)
		if c.waiting {
			c.kick()
		}
		c.tl.Unlock()
		c.flush()
	}
}

// AsyncWritev is AsyncWrite of the buffers joined.
func (c *Conn) AsyncWritev(bs [][]byte, callback gnet.AsyncCallback) error {
	var p []byte
	for _, b := range bs {
		p = append(p, b...)
	}
	return c.AsyncWrite(p, callback)
}

// Wake calls OnTraffic from another goroutine, as gnet's Wake has the loop
// call it.
func (c *Conn) Wake(callback gnet.AsyncCallback) error {
	go func() {
		defer safego.Recover("tls connection")
		c.tl.Lock()
		if c.gone || c.closeReq.Load() {
			if callback != nil {
				callback(c, net.ErrClosed)
			}
			c.tl.Unlock()
			return
		}
		act := c.t.h.OnTraffic(c)
		if callback != nil {
			callback(c, nil)
		}
		if c.waiting {
			c.kick() // the forward may have ended
		}
		c.tl.Unlock()
		c.flush()
		if act == gnet.Close {
			c.requestClose()
		}
	}()
	return nil
}

// Close has the connection's goroutine write what is buffered, close and
// call OnClose; it does not wait, and may be called with the lock held.
func (c *Conn) Close() error {
	c.requestClose()
	return nil
}

// CloseWithCallback is Close; the callback runs once OnClose has.
func (c *Conn) CloseWithCallback(callback gnet.AsyncCallback) error {
	c.requestClose()
	if callback != nil {
		go func() {
			defer safego.Recover("tls connection")
			c.tl.Lock()
			for !c.gone {
				c.tl.Unlock()
				time.Sleep(time.Millisecond)
				c.tl.Lock()
			}
			callback(c, nil)
			c.tl.Unlock()
		}()
	}
	return nil
}

// closeWriteAfterFlush ends the write side once what is buffered is
// written (loop): the lingering close's shutdown(SHUT_WR).
func (c *Conn) closeWriteAfterFlush() { c.shutWrite = true }

func (c *Conn) Context() any                     { return c.ctx }
func (c *Conn) SetContext(ctx any)               { c.ctx = ctx }
func (c *Conn) EventLoop() gnet.EventLoop        { return c.tl }
func (c *Conn) LocalAddr() net.Addr              { return c.raw.LocalAddr() }
func (c *Conn) RemoteAddr() net.Addr             { return c.raw.RemoteAddr() }
func (c *Conn) SetDeadline(time.Time) error      { return errUnsupported }
func (c *Conn) SetReadDeadline(time.Time) error  { return errUnsupported }
func (c *Conn) SetWriteDeadline(time.Time) error { return errUnsupported }

// The rest of gnet.Conn, which the handler does not use.
func (c *Conn) Read([]byte) (int, error)               { return 0, errUnsupported }
func (c *Conn) WriteTo(io.Writer) (int64, error)       { return 0, errUnsupported }
func (c *Conn) ReadFrom(io.Reader) (int64, error)      { return 0, errUnsupported }
func (c *Conn) SendTo([]byte, net.Addr) (int, error)   { return 0, errUnsupported }
func (c *Conn) Fd() int                                { return -1 }
func (c *Conn) Dup() (int, error)                      { return -1, errUnsupported }
func (c *Conn) SetReadBuffer(int) error                { return errUnsupported }
func (c *Conn) SetWriteBuffer(int) error               { return errUnsupported }
func (c *Conn) SetLinger(int) error                    { return errUnsupported }
func (c *Conn) SetKeepAlivePeriod(time.Duration) error { return errUnsupported }
func (c *Conn) SetNoDelay(bool) error                  { return errUnsupported }
func (c *Conn) SetKeepAlive(bool, time.Duration, time.Duration, int) error {
	return errUnsupported
}

var _ gnet.Conn = (*Conn)(nil)
var _ gnet.EventLoop = (*Loop)(nil)
