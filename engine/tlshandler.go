package engine

import (
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/engine/tlsport"
)

// tlsHandler is the handler as the TLS listener (engine/tlsport) sees it:
// gnet's callbacks, and what it asks of a connection's state. Its
// methods but the timeouts' and ServeH2 (h2conn.go) run with the
// connection's tlsport.Loop locked, as a gnet callback runs on its loop.
type tlsHandler struct{ *handler }

var _ tlsport.Handler = tlsHandler{}

func connOf(c *tlsport.Conn) *conn {
	cs, _ := c.Context().(*conn)
	return cs
}

// WaitsProxyHeader: with proxy_protocol, the header comes before the
// handshake.
func (th tlsHandler) WaitsProxyHeader(c *tlsport.Conn) bool {
	cs := connOf(c)
	return cs != nil && cs.proxy.waiting
}

// ProxyHeader applies the PROXY header in in as the plain port does
// (conn.proxyHeader: the client it names is the connection's, counted
// against its limit).
func (th tlsHandler) ProxyHeader(c *tlsport.Conn, in []byte) (done bool, action gnet.Action) {
	cs := connOf(c)
	_, _, action = cs.proxyHeader(c, in)
	return !cs.proxy.waiting, action
}

// Forwarding reports whether c's request is being forwarded.
func (th tlsHandler) Forwarding(c *tlsport.Conn) bool {
	cs := connOf(c)
	return cs != nil && cs.fwd != nil
}

// IdleFrom starts the connection's idle_timeout over, extra from now:
// the handshake has a deadline of its own, and one that waits for an
// on-demand certificate can take most of it; counted as idle time, it
// would close the connection before or just after the handshake, and
// leave the client no time to send its request.
func (th tlsHandler) IdleFrom(c *tlsport.Conn, extra time.Duration) {
	if cs := connOf(c); cs != nil {
		s := th.srv
		cs.active = s.clock.fresh() + int64(max(0, extra-s.opts.IdleTimeout))
	}
}

func (th tlsHandler) HeaderTimeout() time.Duration { return th.srv.opts.HeaderTimeout }
func (th tlsHandler) SendTimeout() time.Duration   { return th.srv.sendTimeout() }
func (th tlsHandler) SendTimedOut()                { th.srv.m.timeouts.send.Inc() }
