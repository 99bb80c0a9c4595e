package engine_test

import (
	"bufio"
	"io"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
)

// TestForwardProxyIdentity sends a miss carrying every kind of field by
// which a proxy names the client: from a peer that is not a trusted proxy
// the upstream sees none of them (they would let any client say it came
// from 127.0.0.1 for admin.internal), from a trusted one it sees them as
// sent.
func TestForwardProxyIdentity(t *testing.T) {
	const fields = "Forwarded: for=127.0.0.1;proto=https;host=admin.internal\r\nX-Real-IP: 127.0.0.1\r\n" +
		"X-Forwarded-Port: 443\r\nTrue-Client-IP: 10.0.0.1\r\nX-Original-URL: /admin\r\nx-forwarded-server: lb\r\n"
	sent := map[string]string{
		"Forwarded": "for=127.0.0.1;proto=https;host=admin.internal", "X-Real-Ip": "127.0.0.1",
		"X-Forwarded-Port": "443", "True-Client-Ip": "10.0.0.1", "X-Original-Url": "/admin", "X-Forwarded-Server": "lb",
	}
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		want    map[string]string
	}{
		{"untrusted peer", trustTen, map[string]string{}},
		{"trusted peer", trustLoopback, sent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := ppServer(t, engine.Options{Proxies: engine.ProxyOptions{Trusted: tc.trusted}})
			c := dial(t, srv)
			io.WriteString(c, "GET /miss/identity HTTP/1.1\r\nHost: site.example\r\n"+fields+"\r\n")
			resp, body := readFull(t, bufio.NewReader(c), "GET")
			if resp.StatusCode != 200 {
				t.Fatalf("forwarded: %d %s", resp.StatusCode, body)
			}
			got := map[string]string{}
			for name := range sent {
				if v := upstreamSaw(body, name); v != "" {
					got[name] = v
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("identity fields the upstream saw (-want +got):\n%s\nits echo:\n%s", d, body)
			}
		})
	}
}
