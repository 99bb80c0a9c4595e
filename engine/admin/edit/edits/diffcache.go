package edits

import (
	"github.com/redirectd/redirectd/engine/admin/edit"
)

// diffCache keeps the version diff answered last, so that the same
// question again (the console's diff page reloaded or paged back to,
// the JSON /versions/diff after it) is answered at once: comparing a
// version of a million rules rebuilds it from the config and takes
// seconds (5.3 s measured by BenchmarkConsolePages1M). Any load clears it
// (VersionLog.recordVersion), since an edited version is rebuilt from
// the config as it is at the time; gen tells a diff computed across a
// load, which is not kept. One diff only, of at most three lists of
// maxKeptDiff rules: a scoped token's JSON diff asks for every rule,
// which could be a million, and is not kept. Guarded by VersionLog.mu.
type diffCache struct {
	gen      uint64
	from, to string
	limit    int
	d        *edit.VersionDiff
}

// cachedDiff returns the kept diff of from and to with limit, or nil, and
// the generation to pass to keepDiff.
func (vl *VersionLog) cachedDiff(from, to string, limit int) (*edit.VersionDiff, uint64) {
	vl.mu.Lock()
	defer vl.mu.Unlock()
	c := &vl.diff
	if c.d != nil && c.from == from && c.to == to && c.limit == limit {
		return c.d, c.gen
	}
	return nil, c.gen
}

// maxKeptDiff is the largest limit of a diff kept (the console asks
// for 1,000 a list, the JSON endpoint's default is 1,000).
const maxKeptDiff = 10_000

// keepDiff keeps d unless a load came since gen was read.
func (vl *VersionLog) keepDiff(gen uint64, from, to string, limit int, d *edit.VersionDiff) {
	if limit > maxKeptDiff {
		return
	}
	vl.mu.Lock()
	defer vl.mu.Unlock()
	if vl.diff.gen == gen {
		vl.diff = diffCache{gen: gen, from: from, to: to, limit: limit, d: d}
	}
}

// forgetDiff drops the kept diff: a load changed what a diff rebuilds.
// vl.mu is held.
func (vl *VersionLog) forgetDiff() {
	vl.diff = diffCache{gen: vl.diff.gen + 1}
}
