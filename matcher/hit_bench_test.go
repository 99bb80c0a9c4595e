package matcher_test

import (
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// BenchmarkHit measures a lookup of a packed exact rule and its Hit (the
// hit counter, and the last-answered stamp within one second: a load).
func BenchmarkHit(b *testing.B) {
	s, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Exact, From: "/e", To: "/x", Status: 301}})
	if err != nil {
		b.Fatal(err)
	}
	var m matcher.Match
	m.Now = 1_800_000_000 * 1e9
	p := []byte("/e")
	b.ReportAllocs()
	for b.Loop() {
		if s.Lookup(nil, p, nil, &m) {
			m.Hit()
		}
	}
}
