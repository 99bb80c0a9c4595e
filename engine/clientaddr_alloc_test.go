//go:build !race

package engine

import "testing"

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
