package engine_test

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestProxyProtocolOverTLS: on the TLS listener, the PROXY header comes
// before the handshake. A trusted balancer's header names the client that
// the upstream and the access log see; a missing header or an untrusted
// peer is closed before the handshake and counted.
func TestProxyProtocolOverTLS(t *testing.T) {
	t.Parallel()
	_, roots := testCertificate(t)
	clientConf := &tls.Config{ServerName: "example.com", RootCAs: roots}
	handshake := func(t *testing.T, srv *engine.Server, header string) (*tls.Conn, error) {
		raw, err := net.DialTimeout("tcp", srv.TLSAddr(), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		raw.SetDeadline(time.Now().Add(testutil.Patience))
		io.WriteString(raw, header)
		c := tls.Client(raw, clientConf)
		return c, c.Handshake()
	}

	t.Run("trusted", func(t *testing.T) {
		srv, logFile := ppServer(t, engine.Options{TLS: testTLSOptions(t), Proxies: engine.ProxyOptions{Protocol: true, Trusted: trustLoopback}})
		c, err := handshake(t, srv, "PROXY TCP4 203.0.113.7 192.0.2.1 40000 443\r\n")
		if err != nil {
			t.Fatalf("handshake after the PROXY header: %v", err)
		}
		io.WriteString(c, "GET /miss HTTP/1.1\r\nHost: site.example\r\n\r\n")
		resp, body := readFull(t, bufio.NewReader(c), "GET")
		if resp.StatusCode != 200 || upstreamSaw(body, "X-Forwarded-For") != "203.0.113.7" || upstreamSaw(body, "X-Forwarded-Proto") != "https" {
			t.Fatalf("upstream saw X-Forwarded-For %q, X-Forwarded-Proto %q (status %d); want 203.0.113.7 and https",
				upstreamSaw(body, "X-Forwarded-For"), upstreamSaw(body, "X-Forwarded-Proto"), resp.StatusCode)
		}
		if l := logLines(t, logFile, 1); l[0].Client != "203.0.113.7" {
			t.Errorf("access log client %q, want 203.0.113.7", l[0].Client)
		}
	})
	for _, tc := range []struct {
		name, header, reason string
		opts                 engine.ProxyOptions
	}{
		{"missing", "", "missing", engine.ProxyOptions{Protocol: true, Trusted: trustLoopback}},
		{"untrusted", "PROXY TCP4 203.0.113.7 192.0.2.1 40000 443\r\n", "untrusted", engine.ProxyOptions{Protocol: true, Trusted: trustTen}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServerWith(t, engine.Options{TLS: testTLSOptions(t), Proxies: tc.opts})
			if _, err := handshake(t, srv, tc.header); err == nil {
				t.Fatal("handshake succeeded; want the connection closed before it")
			}
			waitMetric(t, srv, `redirectd_proxy_protocol_rejected_total{reason="`+tc.reason+`"}`, 1)
			waitMetric(t, srv, "redirectd_connections_open", 0)
		})
	}
}
