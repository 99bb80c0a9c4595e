package rewrite

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/redirectd/redirectd/matcher"
)

// The rewrite of BenchmarkLocationRewrite, werf's docs rewrite, and a
// request it answers.
const (
	locRewriteRegex  = `^(.*)/usage/?$`
	locRewriteTo     = "$1/usage/overview.html"
	locRewritePath   = "/docs/v7/usage"
	locRewriteAnswer = "/docs/v7/usage/overview.html"
)

// locRewriteProgram has /docs/ with n nested locations /docs/vI/ (n
// more than 7), each holding the rewrite as werf's include of one file
// in every /docs/<ver>/ block does, and n top-level /siteI/ beside:
// locRewritePath chooses /docs/v7/ among 2n+1 locations.
func locRewriteProgram(tb testing.TB, n int) *Program {
	tb.Helper()
	docs := LocationSpec{Path: "/docs/", Steps: fmt.Sprintf("rewrite %s %s redirect;", locRewriteRegex, locRewriteTo)}
	for i := range n {
		docs.Locations = append(docs.Locations, LocationSpec{Path: fmt.Sprintf("/docs/v%d/", i), Steps: docs.Steps})
	}
	spec := Spec{Locations: []LocationSpec{docs}}
	for i := range n {
		spec.Locations = append(spec.Locations, LocationSpec{Path: fmt.Sprintf("/site%d/", i)})
	}
	p, err := Compile(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkLocationRewrite measures a request answered by a rewrite
// inside a prefix location among n (2n+1 locations: n nested version
// locations each holding the rewrite, n top-level ones beside), Run
// with its Location built, beside the same regex as a top-level rule
// of matcher (Lookup and AppendLocation): what moving a regex into a
// location costs.
func BenchmarkLocationRewrite(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("location/%d", n), func(b *testing.B) {
			p := locRewriteProgram(b, n)
			req := request("example.com", locRewritePath, nil)
			var s Scratch
			var res Result
			p.Run(&s, req, &res)
			if res.Action != Redirect || string(res.Location) != locRewriteAnswer {
				b.Fatalf("Run = %v %q, want a redirect to %q", res.Action, res.Location, locRewriteAnswer)
			}
			b.ReportAllocs()
			for b.Loop() {
				p.Run(&s, req, &res)
			}
		})
	}
	b.Run("top-level", func(b *testing.B) {
		top := newTopLevelRewrite(b)
		b.ReportAllocs()
		for b.Loop() {
			top()
		}
	})
	// ratio alternates chunks of the two in one process and keeps each
	// one's fastest chunk: on a shared machine, load that falls on one
	// run of a pair of benchmarks falls on both chunks alike here.
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("ratio/%d", n), func(b *testing.B) {
			p := locRewriteProgram(b, n)
			req := request("example.com", locRewritePath, nil)
			var s Scratch
			var res Result
			loc := func() { p.Run(&s, req, &res) }
			top := newTopLevelRewrite(b)
			const chunk = 1000
			bestLoc, bestTop := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
			for b.Loop() {
				for _, c := range []struct {
					f    func()
					best *time.Duration
				}{{loc, &bestLoc}, {top, &bestTop}} {
					start := time.Now()
					for range chunk {
						c.f()
					}
					*c.best = min(*c.best, time.Since(start))
				}
			}
			b.ReportMetric(float64(bestLoc)/chunk, "location-ns")
			b.ReportMetric(float64(bestTop)/chunk, "top-level-ns")
			b.ReportMetric(float64(bestLoc)/float64(bestTop), "location/top")
		})
	}
}

// newTopLevelRewrite returns the request of BenchmarkLocationRewrite
// answered by the same regex as a top-level rule: Lookup and
// AppendLocation.
func newTopLevelRewrite(b *testing.B) func() {
	set, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Regex, From: locRewriteRegex, To: locRewriteTo, Status: 302}})
	if err != nil {
		b.Fatal(err)
	}
	var m matcher.Match
	host, path := []byte("example.com"), []byte(locRewritePath)
	buf := make([]byte, 0, 256)
	if !set.Lookup(host, path, nil, &m) || string(m.AppendLocation(nil, nil)) != locRewriteAnswer {
		b.Fatalf("the top-level rule does not answer %q", locRewriteAnswer)
	}
	return func() {
		if set.Lookup(host, path, nil, &m) {
			buf = m.AppendLocation(buf[:0], nil)
		}
	}
}

// TestLocationRewriteAllocs: the request of BenchmarkLocationRewrite
// allocates nothing among 2,001 locations.
func TestLocationRewriteAllocs(t *testing.T) {
	p := locRewriteProgram(t, 1000)
	req := request("example.com", locRewritePath, nil)
	var s Scratch
	var res Result
	p.Run(&s, req, &res)
	if n := testing.AllocsPerRun(100, func() { p.Run(&s, req, &res) }); n != 0 {
		t.Errorf("%v allocations per Run", n)
	}
}
