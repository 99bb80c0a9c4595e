package tlsport

import (
	"crypto/tls"

	"github.com/redirectd/redirectd/internal/safego"
)

// What HTTP/2 serving (engine/h2bridge) and the engine's lingering close
// use of a Conn beside gnet.Conn's methods.

// Loop is the stand-in event loop c is served under: lock it where gnet
// would run on the loop.
func (c *Conn) Loop() *Loop { return c.tl }

// TLS is c's TLS connection, once the handshake is done.
func (c *Conn) TLS() *tls.Conn { return c.tc }

// Closing reports whether c is to close: its reads end at once.
func (c *Conn) Closing() bool { return c.closeReq.Load() }

// Teardown writes what is left, closes c and calls OnClose.
func (c *Conn) Teardown() { c.teardown() }

// WaitReadable waits without reading until c's socket has bytes, after a
// read of its TLS timed out.
func (c *Conn) WaitReadable() { c.waitReadable() }

// SetPeerClosed says the client closed its HTTP/2 connection, so that
// Teardown sends no close_notify; set before Teardown, on c's goroutine.
func (c *Conn) SetPeerClosed(closed bool) { c.peerClosed = closed }

// CloseWriteAfterFlush shuts c's write side once what is buffered is
// written: a lingering close (with the Loop locked).
func (c *Conn) CloseWriteAfterFlush() { c.closeWriteAfterFlush() }

// Go runs fn on a goroutine of c's, which Listener.Stop waits for; a
// panic in it is recovered and logged as in name.
func (c *Conn) Go(name string, fn func()) {
	c.t.wg.Add(1)
	go func() {
		defer safego.Recover(name)
		defer c.t.wg.Done()
		fn()
	}()
}
