package matcher

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzQueryConditions checks condHolds, which decodes the request's query
// as it compares, against splitting the query and decoding each part with
// net/url. Queries with a malformed escape are skipped: url refuses them,
// while condHolds takes the escape literally.
func FuzzQueryConditions(f *testing.F) {
	f.Add("utm_source=newsletter&ref", "utm_source", "newsletter")
	f.Add("a=1&a=2", "a", "2")
	f.Add("campaign=spring+sale", "campaign", "spring sale")
	f.Add("x%5Fy=%41", "x_y", "A")
	f.Add("k=", "k", "")
	f.Add("k", "k", "*")
	f.Fuzz(func(t *testing.T, query, name, value string) {
		if name == "" {
			return
		}
		want := false
		for _, param := range strings.Split(query, "&") {
			if query == "" {
				break
			}
			n, v, hasValue := strings.Cut(param, "=")
			dn, err1 := url.QueryUnescape(n)
			dv, err2 := url.QueryUnescape(v)
			if err1 != nil || err2 != nil {
				return
			}
			if dn != name {
				continue
			}
			if value == AnyValue || (hasValue || value == "") && dv == value {
				want = true
			}
		}
		c := QueryCond{Name: name, Value: value}
		if got := condHolds(&c, []byte(query)); got != want {
			t.Fatalf("condHolds(%q = %q, query %q) = %v, want %v", name, value, query, got, want)
		}
	})
}
