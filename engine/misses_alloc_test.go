//go:build !race

package engine

import (
	"fmt"
	"testing"
)

// TestServeMissAllocs checks that counting misses keeps a 404 free of
// allocations, for a path already tracked and for new paths that take
// slots over in a full sketch.
func TestServeMissAllocs(t *testing.T) {
	f := newServeFixtureWith(t, Options{MissesCapacity: 8, EventLoops: 1})
	reqs := make([][]byte, 64)
	for i := range reqs {
		reqs[i] = fmt.Appendf(nil, "GET /no/such/page/%d HTTP/1.1\r\nHost: www.example.com\r\n\r\n", i)
	}
	i := 0
	allocs := testing.AllocsPerRun(500, func() {
		f.serve(t, reqs[0])
		f.serve(t, reqs[i%len(reqs)])
		i++
	})
	if allocs != 0 {
		t.Errorf("%v allocations per miss counted, want 0", allocs)
	}
	if f.conn.loop.misses.Tracked() != 8 {
		t.Errorf("the sketch tracks %d paths, want 8 (full)", f.conn.loop.misses.Tracked())
	}
}
