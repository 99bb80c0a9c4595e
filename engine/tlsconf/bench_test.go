package tlsconf

import (
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// BenchmarkGetCertificate measures choosing a certificate by SNI among
// 1,000 exact names and a wildcard.
func BenchmarkGetCertificate(b *testing.B) {
	t := &testing.T{}
	ca, dir := testutil.NewCA(t), b.TempDir()
	names := []string{"*.wild.example"}
	for i := range 1000 {
		names = append(names, "host"+itoa(i)+".example")
	}
	c, k := ca.WriteCert(t, dir, "many", time.Now().Add(time.Hour), names...)
	m, err := New(&Settings{Certificates: pairs(c, k)}, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	for _, sni := range []string{"host500.example", "x.wild.example", "Host500.Example", ""} {
		b.Run("sni="+sni, func(b *testing.B) {
			hello := &tls.ClientHelloInfo{ServerName: sni}
			b.ReportAllocs()
			for b.Loop() {
				m.getCertificate(hello)
			}
		})
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// BenchmarkHandshake measures a server-side handshake with an ECDSA P-256
// certificate over an in-memory pipe, full and resumed from a ticket, TLS
// 1.3 (the client's share of the CPU is in the figure too).
func BenchmarkHandshake(b *testing.B) {
	t := &testing.T{}
	ca, dir := testutil.NewCA(t), b.TempDir()
	c, k := ca.WriteCert(t, dir, "a", time.Now().Add(time.Hour), "a.example.com")
	m, err := New(&Settings{Certificates: pairs(c, k)}, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	for _, resume := range []bool{false, true} {
		name := "full"
		if resume {
			name = "resumed"
		}
		b.Run(name, func(b *testing.B) {
			cfg := &tls.Config{ServerName: "a.example.com", RootCAs: ca.Pool()}
			if resume {
				cfg.ClientSessionCache = tls.NewLRUClientSessionCache(1)
			}
			b.ReportAllocs()
			for b.Loop() {
				cc, sc := net.Pipe()
				done := make(chan error, 1)
				go func() {
					s := tls.Server(sc, m.TLSConfig())
					err := s.Handshake()
					if err == nil {
						_, err = s.Write([]byte("k")) // carries the TLS 1.3 ticket
					}
					done <- err
					sc.Close() // not s.Close: its close_notify would wait on the pipe
				}()
				cl := tls.Client(cc, cfg)
				if err := cl.Handshake(); err != nil {
					b.Fatal(err)
				}
				io.ReadFull(cl, make([]byte, 1))
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				cc.Close()
			}
		})
	}
}
