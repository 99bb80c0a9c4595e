package upstream

import (
	"context"
	"crypto/tls"
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
