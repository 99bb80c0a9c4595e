package matcher

import (
	"os"
	"strconv"
	"testing"
)

// BenchmarkPackedIndex files the keys of a packed table of INDEX_RULES
// (100,000 unless set) rules like the benchmark's map entries
// (`/exact/N https://example.com/new/N`) into a fresh hash index: what
// index costs a map file's load, its slots' first touch included.
// benchmarks/README.md, "A million rules in half HAProxy's time", gives
// it at a million.
func BenchmarkPackedIndex(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("INDEX_RULES")); err == nil && v > 0 {
		n = v
	}
	t := newPackedTable("")
	for i := range n {
		r := Rule{Kind: Exact, From: "/exact/" + strconv.Itoa(i), To: "https://example.com/new/" + strconv.Itoa(i), Status: 301, File: "m.map", Line: i + 1}
		if ok, err := t.add(&r, DefaultLimits); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
	for b.Loop() {
		t.indexed, t.slots, t.shift = 0, make([]uint64, 16), 64-4
		if errs := t.index(); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
