package pcre

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCrafted500 runs 500 unanchored rewrites in werf's shape
// (`^(.*)/usage/?$` with lookaheads) one after the other on a path made
// of all their literals, none matching, with no budget: the whole work
// nginx does for that path (matcher's BenchmarkPCRECrafted stops at its
// budget). ns/op and steps/op are per path, all 500 regexes.
func BenchmarkCrafted500(b *testing.B) {
	var res []*Regexp
	var path strings.Builder
	for i := range 500 {
		from := fmt.Sprintf(`^(.*)/w%03d(?!\.html)/?$`, i)
		if i%2 == 1 {
			from = fmt.Sprintf(`^(.*)/w%03d/(?=\d)(.*)$`, i)
		}
		res = append(res, MustCompile(from))
		fmt.Fprintf(&path, "/w%03d", i)
	}
	path.WriteString(".html")
	in := []byte(path.String())
	var s Scratch
	caps := make([]int, 6)
	steps := 0
	b.ReportAllocs()
	for b.Loop() {
		for _, re := range res {
			budget := 1 << 30
			if m, _ := re.Match(&s, in, caps, &budget); m {
				b.Fatalf("%s matches", re)
			}
			steps += 1<<30 - budget
		}
	}
	b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
}
