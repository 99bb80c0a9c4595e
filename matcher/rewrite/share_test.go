package rewrite

import (
	"fmt"
	"strings"
	"testing"
)

// TestCompileHostsSharesRegexes checks that the same rewrites in many
// hosts are compiled once: a dozen hosts cost far less than a dozen times
// one (counted in allocations, which unlike heap size do not move with
// the collector).
func TestCompileHostsSharesRegexes(t *testing.T) {
	var steps strings.Builder
	for i := range 50 {
		fmt.Fprintf(&steps, "rewrite ^/old%d/(?<tail>.+)$ /new%d/$tail redirect;\n", i, i)
	}
	specs := func(n int) []HostSpec {
		var hs []HostSpec
		for i := range n {
			hs = append(hs, HostSpec{Host: fmt.Sprintf("h%d.example.com", i), Spec: Spec{Steps: []Text{{Src: steps.String(), Line: 1}}}})
		}
		return hs
	}
	compileAllocs := func(n int) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := CompileHosts(specs(n)); err != nil {
				t.Fatal(err)
			}
		})
	}
	one, twelve := compileAllocs(1), compileAllocs(12)
	if twelve > 4*one {
		t.Errorf("12 hosts of the same 50 rewrites allocate %.0f times, one host %.0f: want under 4x, the regexes compiled once", twelve, one)
	}
	shared := newShare()
	a, errA := shared.pattern("^/a(.*)$")
	b, errB := shared.pattern("^/a(.*)$")
	if errA != nil || errB != nil || a != b {
		t.Errorf("the same source compiled twice: %p %v, %p %v; want one Pattern", a, errA, b, errB)
	}
	if _, err := shared.pattern("(unclosed"); err == nil {
		t.Error("a bad regex: no error")
	}
	if _, err := shared.pattern("(unclosed"); err == nil {
		t.Error("a bad regex asked for again: no error")
	}
}
