package engine

import (
	"runtime"
	"testing"
	"time"
)

// TestSpareProc drives the spare P's policy through a rate that rises past
// spareAbove and falls below spareBelow, and checks GOMAXPROCS at each
// step and after stop.
func TestSpareProc(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(base)
	loops := base
	var p spareProc
	p.start(loops)
	t0 := time.Unix(1000, 0)
	var reads uint32 = 1<<32 - 5000 // the count wraps on the way
	steps := []struct {
		name  string
		rate  uint32 // reads a second per loop over the step
		after time.Duration
		procs int
	}{
		{"first tick only sets the mark", 0, 0, loops + 1},
		{"idle keeps the spare", 100, spareEvery, loops + 1},
		{"between the thresholds keeps it", 10000, spareEvery, loops + 1},
		{"too soon to decide", 50000, spareEvery / 2, loops + 1},
		{"above spareAbove takes it back", 50000, spareEvery / 2, loops}, // measured over the whole spareEvery
		{"between keeps it off", 10000, spareEvery, loops},
		{"below spareBelow gives it again", 7000, spareEvery, loops + 1},
	}
	now := t0
	for _, s := range steps {
		now = now.Add(s.after)
		reads += uint32(float64(s.rate)*s.after.Seconds()) * uint32(loops)
		p.tune(now, reads)
		if got := runtime.GOMAXPROCS(0); got != s.procs {
			t.Fatalf("%s: GOMAXPROCS %d, want %d", s.name, got, s.procs)
		}
	}
	p.stop()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("after stop: GOMAXPROCS %d, want %d", got, base)
	}
}

// TestSpareProcLeavesMoreAlone checks that a GOMAXPROCS already above the
// loops is not touched.
func TestSpareProcLeavesMoreAlone(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(base)
	runtime.GOMAXPROCS(4)
	var p spareProc
	p.start(2)
	p.tune(time.Unix(1, 0), 0)
	p.tune(time.Unix(2, 0), 1)
	p.stop()
	if got := runtime.GOMAXPROCS(0); got != 4 {
		t.Fatalf("GOMAXPROCS %d, want 4", got)
	}
}
