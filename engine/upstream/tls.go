package upstream

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
)

// TLSError is a failed TLS handshake with a server: an unknown CA, a
// certificate for another name, a server that asked for a client
// certificate there is none of. It counts as a failed connection
// (IsConnError), and says which group and server, and why.
type TLSError struct {
	Group, Server string
	Err           error
}

func (e *TLSError) Error() string {
	return "upstream " + e.Group + " server " + e.Server + ": TLS: " + e.Err.Error()
}

func (e *TLSError) Unwrap() error { return e.Err }

// errNoClientCert is why an https:// server that asked for a client
// certificate got none.
var errNoClientCert = errors.New("the server asks for a client certificate, and none is configured (client_cert_file, client_key_file)")

// clientTLS returns the TLS settings to dial s with: c, made to log when
// the server asks for a client certificate and c has none. Under TLS 1.3
// the client's handshake completes before the server refuses it, and
// the server's alert comes with the first read, where fasthttp reports
// it only as a closed connection: this line is the one that says why.
func (s *Server) clientTLS(c *tls.Config, log *slog.Logger) *tls.Config {
	if c == nil || len(c.Certificates) > 0 || c.GetClientCertificate != nil {
		return c
	}
	c = c.Clone()
	c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
		log.Warn((&TLSError{Group: s.cfg.Group, Server: s.Addr, Err: errNoClientCert}).Error(), "group", s.cfg.Group, "server", s.Addr)
		return &tls.Certificate{}, nil // none: a server that only asks goes on
	}
	return c
}

// Dial opens a connection of its own to s, over TLS for an https://
// server, within connect_timeout: for a WebSocket tunnel, which does not
// go back to the pool.
func (s *Server) Dial() (net.Conn, error) { return s.dial(s.Addr) }

// dial connects to addr and, for an https:// server, completes the TLS
// handshake, the whole within connect_timeout.
func (s *Server) dial(addr string) (net.Conn, error) {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if t := s.cfg.ConnectTimeout; t > 0 {
		ctx, cancel = context.WithTimeout(ctx, t)
	}
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil || s.tls == nil {
		return c, err
	}
	tc := tls.Client(c, s.tls)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, &TLSError{Group: s.cfg.Group, Server: s.Addr, Err: err}
	}
	return tc, nil
}
