package matcher_test

import (
	"fmt"
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// BenchmarkFileOrder compares a lookup in file order with the default
// order on a hosted service's shape of rules: 2,000 pages, 200 splats,
// 200 placeholder regexes, then a host's catch-all.
func BenchmarkFileOrder(b *testing.B) {
	var rules []matcher.Rule
	for i := range 2000 {
		rules = append(rules, matcher.Rule{From: fmt.Sprintf("/page/%d", i), To: "/new"})
	}
	for i := range 200 {
		rules = append(rules, matcher.Rule{Kind: matcher.Prefix, From: fmt.Sprintf("/dir%d/", i), To: "/d/"})
		rules = append(rules, matcher.Rule{Kind: matcher.Regex, From: fmt.Sprintf(`^/post%d/([^/]+)/(\d+)$`, i), To: "/p/$1/$2"})
	}
	rules = append(rules, matcher.Rule{Kind: matcher.Prefix, From: "/", To: "https://example.org/", Host: "docs.example.org"})
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "r", i+1
	}
	for _, order := range []struct {
		name    string
		compile func([]matcher.Rule) (*matcher.Set, error)
	}{{"precedence", matcher.Compile}, {"file", matcher.CompileFileOrder}} {
		s, err := order.compile(rules)
		if err != nil {
			b.Fatal(err)
		}
		for _, path := range []string{"/page/1500", "/dir150/x", "/post150/a/1", "/nothing/here"} {
			b.Run(order.name+path, func(b *testing.B) {
				var m matcher.Match
				p, host := []byte(path), []byte("www.example.org")
				for b.Loop() {
					s.Lookup(host, p, nil, &m)
				}
			})
		}
	}
}
