package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/tlsport"
)

// TLSOptions configure the TLS listener (engine/tlsport). Its connections
// are served by the same handler as the plain port's: the same parser,
// rules, answers, limits, timeouts, forwarding and access log.
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

// listenTLS opens the TLS listener; its accept loop starts with serveTLS.
// SO_REUSEPORT lets a new instance bind the port during an upgrade, as the
// plain port does; DeferAccept sets TCP_DEFER_ACCEPT as there
// (deferTLSAccept).
func (s *Server) listenTLS() error {
	o := *s.opts.TLS
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
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
	if o.HSTS != "" {
		s.hsts = "Strict-Transport-Security: " + o.HSTS + "\r\n"
	}
	s.hstsVary = s.hsts + varyForwardedProto
	s.tls = tlsport.New(ln, tlsport.Options{Config: o.Config, HandshakeTimeout: o.HandshakeTimeout,
		Handshake: o.Handshake, Loops: s.opts.EventLoops, Log: s.log}, tlsHandler{s.handler})
	return nil
}

// TLSAddr returns the TLS address with the port resolved, or "" without a
// TLS listener; valid after Ready is closed.
func (s *Server) TLSAddr() string {
	if s.tls == nil {
		return ""
	}
	return s.tls.Addr().String()
}
