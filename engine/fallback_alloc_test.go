//go:build !race

package engine

import (
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/matcher"
)

// TestFallbackServeAllocs checks that fallback rules cost nothing on the
// hot path: with fallback rules in the set and an upstream configured, a
// request that matches a plain rule allocates nothing, as without them;
// and without an upstream a fallback rule answers as a plain rule, also
// allocation-free. (A fallback hit with an upstream is a forward, whose
// allocations are the forward's.)
func TestFallbackServeAllocs(t *testing.T) {
	rs := append(rules.Rules(rules.Reference),
		matcher.Rule{From: "/fb/exact", To: "/x", Status: 301, Fallback: true},
		matcher.Rule{Kind: matcher.Prefix, From: "/fb/pre/", To: "/y/", Status: 302, Fallback: true},
		matcher.Rule{Kind: matcher.Regex, From: `^/fb/re/(\d+)$`, To: "/r/$1", Status: 301, Fallback: true})
	set, err := matcher.Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	pool := upstream.New(upstream.Config{Servers: []string{"127.0.0.1:9"}}, nil)
	defer pool.Close()
	for _, tc := range []struct {
		name  string
		opts  Options
		paths []string
	}{
		{"upstream, plain rules", Options{Upstream: &UpstreamOptions{Pool: pool}}, []string{rules.ExactHit, rules.PrefixHit, rules.LastRegex}},
		{"no upstream", Options{}, []string{rules.ExactHit, rules.LastRegex, rules.Miss, "/fb/exact", "/fb/pre/a", "/fb/re/12"}},
	} {
		f := newServeFixtureWith(t, tc.opts)
		f.srv.Swap(set)
		for _, p := range tc.paths {
			buf := []byte("GET " + p + " HTTP/1.1\r\nHost: a\r\n\r\n")
			out := f.serve(t, buf)
			if len(out) < 12 || string(out[9:10]) != "3" && string(out[9:12]) != "404" {
				t.Fatalf("%s %s: answer %q", tc.name, p, out)
			}
			allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) })
			if allocs != 0 {
				t.Errorf("%s: %s: %v allocations per request, want 0", tc.name, p, allocs)
			}
		}
	}
}
