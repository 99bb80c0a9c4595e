package matcher

import (
	"fmt"
	"strings"
	"testing"
)

// pcreBenchRules returns n unanchored rewrites in werf's shape
// (`^(.*)/usage/?$` with lookaheads), each with its own literal.
func pcreBenchRules(n int) []Rule {
	rules := make([]Rule, n)
	for i := range rules {
		from := fmt.Sprintf(`^(.*)/w%03d(?!\.html)/?$`, i)
		if i%2 == 1 {
			from = fmt.Sprintf(`^(.*)/w%03d/(?=\d)(.*)$`, i)
		}
		rules[i] = Rule{Kind: Regex, From: from, To: fmt.Sprintf("$1/w%03d/overview.html", i), Status: 302, File: "b", Line: i + 1}
	}
	return rules
}

// BenchmarkPCRECrafted measures a lookup over 500 PCRE rewrites on a
// path crafted from all their literals, which makes every one a
// candidate and none match ("crafted"), and on a path one of them
// matches ("hit"): ns/op, and the steps spent of pcreBudget.
func BenchmarkPCRECrafted(b *testing.B) {
	s, err := Compile(pcreBenchRules(500))
	if err != nil {
		b.Fatal(err)
	}
	var crafted strings.Builder
	for i := range 500 {
		fmt.Fprintf(&crafted, "/w%03d", i)
	}
	crafted.WriteString(".html")
	for _, bc := range []struct{ name, path string }{
		{"crafted", crafted.String()},
		{"hit", "/docs/v1.2/w250/"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m Match
			path := []byte(bc.path)
			buf := make([]byte, 0, 256)
			steps, abandoned := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				if s.Lookup(nil, path, nil, &m) {
					buf = m.AppendLocation(buf[:0], nil)
				}
				steps += pcreBudget - m.pcreLeft
				if m.PCREAbandoned() {
					abandoned++
				}
			}
			b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
			b.ReportMetric(float64(abandoned)/float64(b.N), "abandoned/op")
		})
	}
}
