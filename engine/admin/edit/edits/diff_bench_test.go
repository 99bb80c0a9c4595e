package edits

import (
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// BenchmarkDiffRules1M compares two sets of a million exact rules that
// differ in ten: the comparison /versions/diff makes once both
// versions' rules are loaded. 3.0-3.3 s and 1.05-1.19 GB a diff (2-CPU
// AMD EPYC, Go 1.26): each rule of both sets is made (Each), keyed and
// copied into a map, so a first diff of a million-rule version costs
// that beside the version's rebuild; the diff kept (diffcache.go)
// spares the pages after.
func BenchmarkDiffRules1M(b *testing.B) {
	build := func(extra int) *matcher.Set {
		bd := matcher.NewBuilder(matcher.DefaultLimits)
		for i, r := range rules.Rules(rules.Spec{Exact: testutil.BenchSize(1_000_000) + extra}) {
			r.Line = i + 1
			if err := bd.Add(&r); err != nil {
				b.Fatal(err)
			}
		}
		s, err := bd.Set()
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	a, c := build(0), build(10)
	b.ReportAllocs()
	for b.Loop() {
		if d := diffRules(a, c, 1000); d.AddedCount != 10 {
			b.Fatalf("%d added, want 10", d.AddedCount)
		}
	}
}
