//go:build !race

package engine

import (
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/accesslog"
)

// TestServeAllocsTrustedProxy: a request from a trusted proxy, its client
// taken from X-Forwarded-For and its scheme from X-Forwarded-Proto, is
// answered and logged without allocating.
func TestServeAllocsTrustedProxy(t *testing.T) {
	alog, err := accesslog.Open(filepath.Join(t.TempDir(), "access.log"), accesslog.Combined)
	if err != nil {
		t.Fatal(err)
	}
	defer alog.Close()
	f := newServeFixtureWith(t, Options{AccessLog: alog, HTTPSRedirect: true,
		Proxies: ProxyOptions{Trusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}})
	f.conn.ip = netip.MustParseAddr("10.0.0.1")
	f.conn.proxy.trust(&f.srv.proxy, f.conn.ip)
	buf := []byte("GET " + rules.ExactHit + " HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 198.51.100.1, 10.9.9.9\r\nX-Forwarded-Proto: https\r\n\r\n")
	allocs := testing.AllocsPerRun(100, func() {
		f.serve(t, buf)
		f.conn.loop.alog.Flush()
	})
	if allocs != 0 {
		t.Errorf("%v allocations per request, want 0", allocs)
	}
	if got := f.conn.loop.ri.client; got != netip.MustParseAddr("198.51.100.1") {
		t.Errorf("client %v, want 198.51.100.1", got)
	}
}

// TestRequestClientAllocs: the client of every request is decided on the
// loop, so walking X-Forwarded-For must allocate nothing.
func TestRequestClientAllocs(t *testing.T) {
	for _, peer := range []string{"10.0.0.1", "192.0.2.1"} {
		cs, req := xffConn(peer, []string{"10.0.0.0/8"}, "198.51.100.1:4711, [2001:db8::7]:80", "203.0.113.9, 10.9.9.9")
		if allocs := testing.AllocsPerRun(100, func() { cs.requestClient(req) }); allocs != 0 {
			t.Errorf("peer %s: requestClient allocated %v times per run, want 0", peer, allocs)
		}
	}
}

// BenchmarkRequestClient measures deciding a request's client: from an
// untrusted peer (the cost when trusted_proxies does not match), and from
// a trusted one walking two X-Forwarded-For lines.
func BenchmarkRequestClient(b *testing.B) {
	for name, peer := range map[string]string{"untrusted": "192.0.2.1", "trusted": "10.0.0.1"} {
		b.Run(name, func(b *testing.B) {
			cs, req := xffConn(peer, []string{"10.0.0.0/8"}, "198.51.100.1", "203.0.113.9, 10.9.9.9")
			b.ReportAllocs()
			for b.Loop() {
				cs.requestClient(req)
			}
		})
	}
}
