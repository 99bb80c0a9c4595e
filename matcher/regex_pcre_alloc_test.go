//go:build !race

package matcher

import (
	"runtime"
	"testing"
)

// TestPCRELookupAllocs checks that a lookup answered by, or passing
// over, PCRE regexes allocates nothing once its Match has grown.
func TestPCRELookupAllocs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := compilePCRETest(t)
	for _, p := range []string{"/docs/guide/intro", "/a/b/usage/", "/ab/ab", "/nothing/here", "/p/123."} {
		path := []byte(p)
		var m Match
		var dst []byte
		lookup := func() {
			if s.Lookup(nil, path, nil, &m) {
				dst = m.AppendLocation(dst[:0], nil)
			}
		}
		lookup()
		if n := testing.AllocsPerRun(100, lookup); n != 0 {
			t.Errorf("Lookup(%q): %v allocations", path, n)
		}
	}
}
