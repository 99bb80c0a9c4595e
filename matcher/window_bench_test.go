package matcher_test

import (
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// BenchmarkLookupGated measures what a window or a shadow rule costs the
// lookups that meet one: the reference rules plus, for the exact hit, a
// windowed rule inside or outside its window, or a shadow rule.
func BenchmarkLookupGated(b *testing.B) {
	now := time.Now()
	for _, bc := range []struct {
		name string
		gate matcher.Rule
	}{
		{"window-inside", matcher.Rule{Active: matcher.Window{From: now.Add(-time.Hour), Until: now.Add(time.Hour)}}},
		{"window-outside", matcher.Rule{Active: matcher.Window{Until: now.Add(-time.Hour)}}},
		{"shadow", matcher.Rule{Shadow: true}},
	} {
		rs := rules.Rules(rules.Reference)
		g := bc.gate
		g.Kind, g.Host, g.From, g.To, g.Status = matcher.Exact, rs[0].Host, rules.ExactHit, "/gated", 302
		s, err := matcher.Compile(append([]matcher.Rule{g}, rs...))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			m := matcher.Match{Now: now.UnixNano()}
			buf := make([]byte, 0, 256)
			host, path := []byte("www.example.com"), []byte(rules.ExactHit)
			b.ReportAllocs()
			for b.Loop() {
				if s.Lookup(host, path, nil, &m) {
					buf = m.AppendLocation(buf[:0], nil)
				}
				if m.Shadowed() {
					buf = m.AppendShadowLocation(buf[:0], nil)
				}
			}
		})
	}
}
