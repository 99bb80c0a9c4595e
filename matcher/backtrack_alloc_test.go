//go:build !race

// The race detector allocates on its own, so allocation budgets are checked
// only without it.

package matcher

import (
	"runtime"
	"testing"
)

func TestBacktrackAllocs(t *testing.T) {
	// Pinned to one P so background work is less likely to be counted.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	p, err := compileProgram(`^/regex/499/(\d+)/(.*)$`)
	if err != nil {
		t.Fatal(err)
	}
	input := []byte("/regex/499/123/abc")
	var s Scratch
	caps := make([]int, 2*(p.numSubexp()+1))
	p.match(input, caps, &s) // grow s once; later matches must reuse it
	allocs := testing.AllocsPerRun(1000, func() {
		if !p.match(input, caps, &s) {
			t.Fatal("no match")
		}
	})
	if allocs != 0 {
		t.Errorf("match allocates %v times per run, want 0", allocs)
	}
}
