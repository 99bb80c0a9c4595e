package matcher

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzQueryConditions checks query conditions on the query as params
// splits and decodes it against splitting the query and decoding each part
// with net/url, over the first MaxParams parameters with a name. Queries
// with a malformed escape are skipped: url refuses them, while params
// takes the escape literally.
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
		want, seen := false, 0
		for _, param := range strings.Split(query, "&") {
			if query == "" || seen == MaxParams {
				break
			}
			n, v, hasValue := strings.Cut(param, "=")
			if n == "" {
				continue
			}
			seen++
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
		var p params
		p.setQuery([]byte(query))
		if got := p.holds(&c); got != want {
			t.Fatalf("holds(%q = %q, query %q) = %v, want %v", name, value, query, got, want)
		}
	})
}

// FuzzCookieParams checks the cookies as params splits them against
// CookieValue, which scans the field for the one cookie: the first of a
// name, when it is among the first MaxParams cookies with a name.
func FuzzCookieParams(f *testing.F) {
	f.Add("a=1; b=2", "b")
	f.Add("a=1;a=2", "a")
	f.Add(`s="x y"; t=`, "s")
	f.Add(" =1; k ; k=v", "k")
	f.Add(strings.Repeat("x=1; ", MaxParams)+"late=1", "late")
	f.Fuzz(func(t *testing.T, field, name string) {
		if name == "" {
			return
		}
		var p params
		p.setCookies([]byte(field))
		got, gotOK := p.first(name)
		want, wantOK := CookieValue([]byte(field), []byte(name))
		if wantOK {
			// Past the bound, the cookie is not read.
			n := 0
			for _, pair := range strings.Split(field, ";") {
				pair = strings.Trim(pair, " \t")
				k, _, ok := strings.Cut(pair, "=")
				if !ok || k == "" {
					continue
				}
				if n++; k == name {
					break
				}
			}
			if n > MaxParams {
				want, wantOK = nil, false
			}
		}
		if gotOK != wantOK || string(got) != string(want) {
			t.Fatalf("cookie %q of %q: params %q, %v; CookieValue %q, %v", name, field, got, gotOK, want, wantOK)
		}
	})
}
