package matcher_test

import (
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// BenchmarkLookupURI is BenchmarkLookup over the reference rule set with
// the rules compared on the normalised path and on nginx's $uri
// (uri = "nginx"), side by side: what building $uri once per lookup
// costs. "escaped" is an exact hit sent with a "//" and a %2F.
func BenchmarkLookupURI(b *testing.B) {
	for _, mode := range []struct {
		name string
		u    matcher.URI
	}{{"normalized", matcher.URI{}}, {"nginx", matcher.URI{Nginx: true}}} {
		bl := matcher.NewBuilder(matcher.DefaultLimits)
		bl.SetURI(mode.u)
		for _, r := range rules.Rules(rules.Reference) {
			if err := bl.Add(&r); err != nil {
				b.Fatal(err)
			}
		}
		s, err := bl.Set()
		if err != nil {
			b.Fatal(err)
		}
		host := []byte("www.example.com")
		for _, bc := range []struct{ name, path string }{
			{"exact", rules.ExactHit},
			{"escaped", "/" + rules.ExactHit[:6] + "%2F" + rules.ExactHit[7:]},
			{"prefix", rules.PrefixHit},
			{"last-regex", rules.LastRegex},
			{"miss", rules.Miss},
		} {
			b.Run(mode.name+"/"+bc.name, func(b *testing.B) {
				var m matcher.Match
				buf := make([]byte, 0, 256)
				path := []byte(bc.path)
				b.ReportAllocs()
				for b.Loop() {
					if s.Lookup(host, path, nil, &m) {
						buf = m.AppendLocation(buf[:0], nil)
					}
				}
			})
		}
	}
}
