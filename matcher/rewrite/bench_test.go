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

// BenchmarkMap measures a map of 40,000 literal keys read by a step:
// its first key, its last, and a miss through its one regex key cost
// one hash lookup each, not a scan.
func BenchmarkMap(b *testing.B) {
	var entries []byte
	for i := range 40000 {
		entries = fmt.Appendf(entries, "/page/%d /new/%d;\n", i, i)
	}
	entries = append(entries, "~^/re/(.*)$ /rx/$1;\n"...)
	p, err := Compile(Spec{Maps: []MapSpec{{Source: "$uri", Variable: "to", Entries: string(entries)}},
		Locations: []LocationSpec{{Path: "/", Steps: `if ($to) { return 301 $to; } return 404;`}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, target := range []string{"/page/0", "/page/39999", "/re/a", "/none"} {
		b.Run(target, func(b *testing.B) {
			req := request("example.com", target, nil)
			var s Scratch
			var res Result
			b.ReportAllocs()
			for b.Loop() {
				p.Run(&s, req, &res)
			}
		})
	}
}
