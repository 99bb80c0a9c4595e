package matcher_test

import (
	"fmt"
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// BenchmarkLookupHosts measures a lookup through the host table: 1,000
// exact hosts and 1,000 wildcard hosts with a rule each, asked for an
// exact host's rule, a rule two labels under a wildcard, and a host no
// rule names (then the host-less rule). 0 allocs.
func BenchmarkLookupHosts(b *testing.B) {
	var rs []matcher.Rule
	for i := range 1000 {
		rs = append(rs, matcher.Rule{Host: fmt.Sprintf("site%d.example", i), Kind: matcher.Exact, From: "/old", To: "/new", Status: 301},
			matcher.Rule{Host: fmt.Sprintf("*.zone%d.example", i), Kind: matcher.Exact, From: "/old", To: "/new", Status: 301})
	}
	rs = append(rs, matcher.Rule{Kind: matcher.Exact, From: "/old", To: "/any", Status: 301})
	s, err := matcher.Compile(rs)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, host string }{
		{"exact", "site500.example"},
		{"wildcard", "a.b.zone500.example"},
		{"none", "other.example.org"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m matcher.Match
			host, path := []byte(bc.host), []byte("/old")
			b.ReportAllocs()
			for b.Loop() {
				if !s.Lookup(host, path, nil, &m) {
					b.Fatal("no match")
				}
			}
		})
	}
}
