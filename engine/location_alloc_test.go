//go:build !race

package engine

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// TestAbsoluteRedirectAllocs checks that absolute_redirect keeps answering
// free of allocations, for a path Location and for one that names a host,
// with the listener's port and with the Host's (RedirectPortFromHost).
func TestAbsoluteRedirectAllocs(t *testing.T) {
	for _, fromHost := range []bool{false, true} {
		f := newServeFixtureWith(t, Options{AbsoluteRedirect: true, RedirectPortFromHost: fromHost})
		set, err := matcher.Compile([]matcher.Rule{
			{Kind: matcher.Exact, From: "/old", To: "/new-page", Status: 301},
			{Kind: matcher.Exact, From: "/away", To: "https://other.example/x", Status: 301},
		})
		if err != nil {
			t.Fatal(err)
		}
		f.srv.Swap(set)
		f.conn.local = netip.MustParseAddrPort("127.0.0.1:8080")
		// Host example.com:9090 on the listener of port 8080.
		other := "http://example.com:8080/new-page"
		if fromHost {
			other = "http://example.com:9090/new-page"
		}
		for _, c := range []struct{ req, loc string }{
			{"GET /old?a=1 HTTP/1.1\r\nHost: Example.com:8080\r\n\r\n", "Location: http://example.com:8080/new-page?a=1\r\n"},
			{"GET /old HTTP/1.1\r\nHost: example.com:9090\r\n\r\n", "Location: " + other + "\r\n"},
			{"GET /away HTTP/1.1\r\nHost: example.com\r\n\r\n", "Location: https://other.example/x\r\n"},
		} {
			buf := []byte(c.req)
			f.conn.loop.out = f.conn.loop.out[:0]
			if got := string(f.serve(t, buf)); !strings.Contains(got, c.loc) {
				t.Fatalf("%q: answer %q lacks %q", c.req, got, c.loc)
			}
			allocs := testing.AllocsPerRun(100, func() {
				f.conn.loop.out = f.conn.loop.out[:0]
				f.serve(t, buf)
			})
			if allocs != 0 {
				t.Errorf("port from the Host %v, %q: %v allocations per request, want 0", fromHost, c.req, allocs)
			}
		}
	}
}
