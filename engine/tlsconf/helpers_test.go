package tlsconf

import (
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// pairs turns (cert, key) paths into [[tls.certificate]] entries.
func pairs(files ...string) []Certificate {
	var out []Certificate
	for i := 0; i+1 < len(files); i += 2 {
		out = append(out, Certificate{Cert: files[i], Key: files[i+1], File: "redirectd.toml", Line: 10 + i})
	}
	return out
}

func testLogger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	// Kept, and shown only when the test fails: what certmagic did
	// (orders, renewals, retries) is what a failure needs explained.
	var buf testutil.LockedBuffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the Manager's log:\n%s", buf.String())
		}
	})
	return slog.New(slog.NewTextHandler(&buf, nil))
}

func newManager(t *testing.T, cfg *Settings) *Manager {
	t.Helper()
	m, err := New(cfg, nil, nil, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// serveTLS accepts TLS connections on a loopback port with m's config:
// each is handshaken within a second, counted with HandshakeDone or
// HandshakeFailed, answered "ok" and closed. Handshake errors go to errs
// when it is not nil.
func serveTLS(t *testing.T, m *Manager, errs chan<- error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				tc := tls.Server(c, m.TLSConfig())
				tc.SetDeadline(time.Now().Add(time.Second))
				err := tc.Handshake()
				if errs != nil {
					select {
					case errs <- err:
					default:
					}
				}
				if err != nil {
					m.HandshakeFailed(err)
					return
				}
				st := tc.ConnectionState()
				m.HandshakeDone(st.Version)
				if st.NegotiatedProtocol == alpnACME {
					return // RFC 8737: the handshake was the whole job
				}
				tc.Write([]byte("ok"))
			}()
		}
	}()
	return ln.Addr().String()
}

// dial handshakes with addr as name and reads the "ok", so that a TLS 1.3
// session ticket (sent after the handshake) has arrived.
func dial(addr string, cfg *tls.Config) (tls.ConnectionState, error) {
	raw, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	c := tls.Client(raw, cfg)
	c.SetDeadline(time.Now().Add(testutil.Patience))
	if err := c.Handshake(); err != nil {
		// Not a plain close: the server's flight may be unread here (the
		// client gives up at its certificate), and closing a socket with
		// unread data sends a reset, which can reach the server before
		// the client's alert and turn "bad certificate" into a reset.
		// Half-close, and wait for the server to close.
		raw.(*net.TCPConn).CloseWrite()
		raw.SetReadDeadline(time.Now().Add(testutil.Patience))
		io.Copy(io.Discard, raw)
		raw.Close()
		return tls.ConnectionState{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	buf := make([]byte, 2)
	if _, err := io.ReadFull(c, buf); err != nil {
		return tls.ConnectionState{}, err
	}
	return c.ConnectionState(), nil
}
