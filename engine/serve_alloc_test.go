//go:build !race

package engine

import (
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
)

// TestServeAllocs checks the hot-path contract: parsing a request,
// matching it and writing its answer allocate nothing once the loop's
// buffers have grown. (The race detector allocates, hence the build tag.)
func TestServeAllocs(t *testing.T) {
	f := newServeFixture(t)
	for _, req := range []string{
		"GET " + rules.ExactHit + "?utm=1 HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + rules.PrefixHit + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + rules.LastRegex + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + rules.Miss + " HTTP/1.1\r\nHost: a\r\n\r\n",
		rules.BrowserRequest,
	} {
		buf := []byte(req)
		allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) })
		if allocs != 0 {
			t.Errorf("%q: %v allocations per request, want 0", req[:30], allocs)
		}
	}
}
