package misses

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestSketchOffHeap checks that a sketch's arrays are not on the Go heap,
// where 26 MB counted as live let as much garbage pile up before each
// collection, and that a full sketch still works from them.
func TestSketchOffHeap(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := New(65536)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Errorf("a 65,536-slot sketch grew the heap by %d bytes, want under 1 MiB", grew)
	}
	now := time.Now().UnixNano()
	for i := range 70000 {
		s.Add([]byte("example.com"), fmt.Appendf(nil, "/p/%d", i%66000), now)
	}
	s.check(t)
	if got := s.Tracked(); got != 65536 {
		t.Errorf("tracked %d, want 65536", got)
	}
	runtime.KeepAlive(s)
}

// TestNewSketchWritesNothing checks that New leaves its arrays as the OS
// maps them, zero: a page never written is never backed, so a server
// that sees no misses pays no RSS for its sketch (filling the hash table
// and the free buckets at New cost 768 KiB at 65,536 slots).
func TestNewSketchWritesNothing(t *testing.T) {
	s := New(65536)
	arrays := map[string][]int32{"table": s.table, "bnext": s.bnext, "bprev": s.bprev, "bhead": s.bhead,
		"bucket": s.bucket, "snext": s.snext, "sprev": s.sprev, "hnext": s.hnext}
	for name, a := range arrays {
		for i, v := range a {
			if v != 0 {
				t.Fatalf("%s[%d] = %d after New, want every element 0", name, i, v)
			}
		}
	}
	for i, v := range s.bcount {
		if v != 0 {
			t.Fatalf("bcount[%d] = %d after New, want 0", i, v)
		}
	}
}
