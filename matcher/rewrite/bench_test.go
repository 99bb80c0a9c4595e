package rewrite

import (
	"fmt"
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// BenchmarkRun measures a request through the phase: a location chosen
// among 50 prefixes and its unanchored rewrite redirecting, and a miss
// through the same 20 rewrites. BenchmarkTopLevelRegex is the same
// rewrites as top-level regex rules of matcher, for comparison.
func BenchmarkRun(b *testing.B) {
	spec := Spec{}
	for i := range 50 {
		spec.Locations = append(spec.Locations, LocationSpec{Path: fmt.Sprintf("/docs/v%d/", i)})
	}
	steps := ""
	for i := range 20 {
		steps += fmt.Sprintf("rewrite ^(.*)/usage%d/?$ $1/usage/overview%d.html redirect;\n", i, i)
	}
	spec.Locations = append(spec.Locations, LocationSpec{Path: "/docs/", Steps: steps})
	p, err := Compile(spec)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, target string }{
		{"rewrite-hit", "/docs/a/usage19"},
		{"rewrite-miss", "/docs/a/b/c/d"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := request("example.com", bc.target, nil)
			var s Scratch
			var res Result
			for b.Loop() {
				p.Run(&s, req, &res)
			}
		})
	}
}

func BenchmarkTopLevelRegex(b *testing.B) {
	var rules []matcher.Rule
	for i := range 20 {
		rules = append(rules, matcher.Rule{Kind: matcher.Regex, From: fmt.Sprintf("^(.*)/usage%d/?$", i), To: fmt.Sprintf("$1/usage/overview%d.html", i), Status: 302})
	}
	set, err := matcher.Compile(rules)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, path string }{
		{"regex-hit", "/docs/a/usage19"},
		{"regex-miss", "/docs/a/b/c/d"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m matcher.Match
			host, path := []byte("example.com"), []byte(bc.path)
			for b.Loop() {
				set.Lookup(host, path, nil, &m)
			}
		})
	}
}
