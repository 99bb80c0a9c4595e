//go:build !race

package matcher_test

import (
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// TestFileOrderAllocs: a lookup in file order allocates nothing once the
// Match has warmed up, on every kind of answer and on a miss.
func TestFileOrderAllocs(t *testing.T) {
	s, err := matcher.CompileFileOrder(fileOrderRules())
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	buf := make([]byte, 0, 512)
	for _, target := range []string{"/docs/a", "/blog/7", "/about", "/x/p.html", "/CASE", "/slash", "/q?a=1", "/nothing"} {
		path, query, _ := cut(target)
		p, h := []byte(path), []byte("a.example.org")
		allocs := testing.AllocsPerRun(100, func() {
			if s.Lookup(h, p, query, &m) {
				buf = m.AppendLocation(buf[:0], query)
				_, _ = m.Status(), m.Source()
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup, want 0", target, allocs)
		}
	}
}
