package rewrite

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkCraftedPCRE measures Run on 500 unanchored PCRE rewrites
// (werf's docs shape with a lookahead, as matcher/pcre's
// BenchmarkCrafted500) inside `location /docs/`, for a path made of all
// their literals that none matches: every one is a candidate, and the
// work budget of the request's matcher.Scratch bounds what they cost.
// benchmarks/crafted-rewrites.sh serves the same rewrites from nginx
// and redirectd and compares their CPU per request.
func BenchmarkCraftedPCRE(b *testing.B) {
	var steps, crafted strings.Builder
	crafted.WriteString("/docs")
	for i := range 500 {
		if i%2 == 0 {
			fmt.Fprintf(&steps, "rewrite ^(.*)/w%03d(?!\\.html)/?$ $1/w%03d/overview.html redirect;\n", i, i)
		} else {
			fmt.Fprintf(&steps, "rewrite ^(.*)/w%03d/(?=\\d)(.*)$ $1/w%03d/$2 redirect;\n", i, i)
		}
		fmt.Fprintf(&crafted, "/w%03d", i)
	}
	crafted.WriteString(".html")
	steps.WriteString("return 404;")
	p, err := Compile(Spec{Locations: []LocationSpec{{Path: "/docs/", Steps: steps.String()}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, target, location string }{
		{"crafted", crafted.String(), ""},
		{"hit", "/docs/v1/w250/", "/docs/v1/w250/overview.html"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req := request("example.com", bc.target, nil)
			var s Scratch
			var res Result
			p.Run(&s, req, &res)
			if bc.location == "" && (res.Action != Answer || res.Status != 404) || bc.location != "" && string(res.Location) != bc.location {
				b.Fatalf("Run = %v %d %q", res.Action, res.Status, res.Location)
			}
			abandoned := 0
			b.ReportAllocs()
			for b.Loop() {
				p.Run(&s, req, &res)
				if s.re.PCREAbandoned() {
					abandoned++
				}
			}
			b.ReportMetric(float64(abandoned)/float64(b.N), "abandoned/op")
		})
	}
}
