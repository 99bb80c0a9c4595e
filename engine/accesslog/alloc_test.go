//go:build !race

package accesslog

import (
	"testing"
	"time"
)

// TestAppendAllocs checks the hot-path contract: once the Log has its
// slices, Append allocates nothing, hand-overs included. (The race detector
// allocates, hence the build tag.)
//
// AllocsPerRun pins GOMAXPROCS to 1, so the writer may not run at all during
// the measurement: warmLog stocks the free list, and the measured run hands
// over fewer slices than the queue holds, so none is dropped and every
// hand-over takes a slice from the free list whether or not the writer
// keeps up.
func TestAppendAllocs(t *testing.T) {
	for _, f := range testFormats(t) {
		t.Run(formatName(f), func(t *testing.T) {
			l, b := warmLog(t, f)
			defer l.Close()
			e := redirect()

			// AllocsPerRun calls f twice (a warm-up, then the measured
			// run): 4,000 entries, at most some 45 hand-overs while the
			// queue holds 64. The time moves on so the cached second is
			// reformatted.
			written, dropped := l.Written(), l.Dropped()
			allocs := testing.AllocsPerRun(1, func() {
				for range 2000 {
					e.Time = e.Time.Add(time.Millisecond)
					b.Append(&e)
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per 2,000 appends, want 0", allocs)
			}
			if l.Dropped() != dropped || l.Written() == written {
				t.Errorf("%d lines handed over and %d dropped, want some and none",
					l.Written()-written, l.Dropped()-dropped)
			}
		})
	}
}
