package edits

import (
	"testing"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestDiffCache: a kept diff answers the same question only (from, to
// and limit), a load in between drops it and stops a diff computed
// across it from being kept, and a diff of more than maxKeptDiff rules
// a list is not kept.
func TestDiffCache(t *testing.T) {
	var vl VersionLog
	vl.SetKeep(10)
	d := &edit.VersionDiff{AddedCount: 1}
	_, gen := vl.cachedDiff("a", "b", 1000)
	vl.keepDiff(gen, "a", "b", 1000, d)
	if got, _ := vl.cachedDiff("a", "b", 1000); got != d {
		t.Fatalf("the diff just kept: %v", got)
	}
	for _, q := range []struct {
		from, to string
		limit    int
	}{{"b", "a", 1000}, {"a", "c", 1000}, {"a", "b", 10}} {
		if got, _ := vl.cachedDiff(q.from, q.to, q.limit); got != nil {
			t.Errorf("%+v answered with the diff of a, b, 1000", q)
		}
	}

	var vl2 VersionLog
	vl2.SetKeep(10)
	vl2.keepDiff(0, "a", "b", 1000, d)
	vl2.Record(edit.Version{Hash: "h1"}, 1, KeepPin)
	if got, _ := vl2.cachedDiff("a", "b", 1000); got != nil {
		t.Error("a diff kept before a load answers after it")
	}
	_, before := vl2.cachedDiff("a", "b", 1000)
	vl2.Record(edit.Version{Hash: "h2"}, 1, KeepPin)
	vl2.keepDiff(before, "a", "b", 1000, d)
	if got, _ := vl2.cachedDiff("a", "b", 1000); got != nil {
		t.Error("a diff computed across a load was kept")
	}

	_, gen = vl.cachedDiff("x", "y", maxKeptDiff+1)
	vl.keepDiff(gen, "x", "y", maxKeptDiff+1, d)
	if got, _ := vl.cachedDiff("x", "y", maxKeptDiff+1); got != nil {
		t.Error("a diff of more than maxKeptDiff rules a list was kept")
	}
}
