package misses

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// check verifies the stream-summary's structure: buckets ascend by count,
// every slot sits in the bucket of its count, every slot is found through
// its hash chain, and the bucket count matches the slots in use.
func (s *Sketch) check(t *testing.T) {
	t.Helper()
	seen := 0
	var prev uint64
	for b := s.bmin; b != none; b = s.bnext[b] {
		if s.bcount[b] <= prev {
			t.Fatalf("bucket %d count %d after %d: not ascending", b, s.bcount[b], prev)
		}
		prev = s.bcount[b]
		if s.bhead[b] == none {
			t.Fatalf("bucket %d is empty", b)
		}
		for i := s.bhead[b]; i != none; i = s.snext[i] {
			if s.bucket[i] != b || s.count[i] != s.bcount[b] {
				t.Fatalf("slot %d: bucket %d count %d, in bucket %d count %d", i, s.bucket[i], s.count[i], b, s.bcount[b])
			}
			if s.err[i] >= s.count[i] {
				t.Fatalf("slot %d: error %d not below count %d", i, s.err[i], s.count[i])
			}
			seen++
		}
	}
	if seen != int(s.used) {
		t.Fatalf("%d slots in buckets, %d used", seen, s.used)
	}
	for i := int32(0); i < s.used; i++ {
		found := false
		for j := s.table[s.hash[i]&s.mask] - 1; j != none; j = s.hnext[j] {
			found = found || j == i
		}
		if !found {
			t.Fatalf("slot %d is not in its hash chain", i)
		}
	}
}

// TestSketchGuarantees feeds streams where a few paths are heavy among
// many that are seen once or a few times, and checks space-saving's
// guarantees against exact counts: every key seen more than N/k times is
// tracked, and each tracked key's Count is at least its true count and at
// most Error (itself at most N/k) above it.
func TestSketchGuarantees(t *testing.T) {
	for _, tc := range []struct {
		name      string
		capacity  int
		n         int
		heavy     int     // heavy paths
		heavyFrac float64 // share of the stream they take together
	}{
		{"small", 16, 20000, 3, 0.4},
		{"medium", 256, 200000, 20, 0.3},
		{"one heavy", 64, 100000, 1, 0.05},
		{"not full", 1000, 500, 5, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.capacity)))
			s := New(tc.capacity)
			exact := map[string]uint64{}
			for i := range tc.n {
				var path string
				if rng.Float64() < tc.heavyFrac {
					path = fmt.Sprintf("/heavy/%d", rng.IntN(tc.heavy))
				} else {
					path = fmt.Sprintf("/p/%d", rng.IntN(tc.n))
				}
				host := "Example.COM:8080"
				if i%2 == 1 {
					host = "example.com"
				}
				s.Add([]byte(host), []byte(path), int64(i))
				exact[path]++
				if i%997 == 0 {
					s.check(t)
				}
			}
			s.check(t)
			snap := NewSnapshot(s.Cap())
			s.CopyTo(snap)
			got := Merge([]*Snapshot{snap}, "", 0)
			bound := uint64(tc.n / tc.capacity)
			tracked := map[string]Entry{}
			for _, e := range got {
				if e.Host != "example.com" {
					t.Fatalf("host %q: want example.com (lower case, no port)", e.Host)
				}
				tracked[e.Path] = e
				want := exact[e.Path]
				if e.Count < want || e.Count-e.Error > want {
					t.Errorf("%s: count %d error %d, true count %d outside [count-error, count]", e.Path, e.Count, e.Error, want)
				}
				if e.Error > bound {
					t.Errorf("%s: error %d above N/k = %d", e.Path, e.Error, bound)
				}
			}
			for p, c := range exact {
				if _, ok := tracked[p]; c > bound && !ok {
					t.Errorf("%s seen %d times (> N/k = %d) is not reported", p, c, bound)
				}
			}
			for h := range tc.heavy {
				if _, ok := tracked[fmt.Sprintf("/heavy/%d", h)]; !ok {
					t.Errorf("/heavy/%d is not reported", h)
				}
			}
			if tc.n < tc.capacity && len(got) != len(exact) {
				t.Errorf("a sketch that is not full tracks %d keys, want all %d", len(got), len(exact))
			}
			if s.Tracked() != len(got) {
				t.Errorf("Tracked() = %d, want %d", s.Tracked(), len(got))
			}
		})
	}
}

// TestSketchExactWhenNotFull compares a sketch that never fills with the
// exact answer, first and last seen included.
func TestSketchExactWhenNotFull(t *testing.T) {
	s := New(8)
	adds := []struct {
		host, path string
		at         int64
	}{
		{"a.test", "/x", 10}, {"A.TEST:80", "/x", 20}, {"b.test", "/x", 30},
		{"a.test", "/y", 40}, {"[::1]:8080", "/v6", 50}, {"a.test", "/x", 60},
	}
	for _, a := range adds {
		s.Add([]byte(a.host), []byte(a.path), a.at)
	}
	snap := NewSnapshot(8)
	s.CopyTo(snap)
	want := []Entry{
		{Host: "a.test", Path: "/x", Count: 3, FirstSeen: time.Unix(0, 10).UTC(), LastSeen: time.Unix(0, 60).UTC()},
		{Host: "[::1]", Path: "/v6", Count: 1, FirstSeen: time.Unix(0, 50).UTC(), LastSeen: time.Unix(0, 50).UTC()},
		{Host: "a.test", Path: "/y", Count: 1, FirstSeen: time.Unix(0, 40).UTC(), LastSeen: time.Unix(0, 40).UTC()},
		{Host: "b.test", Path: "/x", Count: 1, FirstSeen: time.Unix(0, 30).UTC(), LastSeen: time.Unix(0, 30).UTC()},
	}
	if d := cmp.Diff(want, Merge([]*Snapshot{snap}, "", 0)); d != "" {
		t.Errorf("Merge (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want[:1], Merge([]*Snapshot{snap}, "A.Test:443", 1)); d != "" {
		t.Errorf("Merge host A.Test:443 limit 1 (-want +got):\n%s", d)
	}
}

// TestSketchTruncates checks that a long path is counted under its first
// MaxPath bytes and marked.
func TestSketchTruncates(t *testing.T) {
	s := New(4)
	long := "/" + string(make([]byte, 0)) + fmt.Sprintf("%0300d", 7)
	s.Add([]byte("h"), []byte(long), 1)
	s.Add([]byte("h"), []byte(long[:MaxPath]+"different tail"), 2)
	snap := NewSnapshot(4)
	s.CopyTo(snap)
	got := Merge([]*Snapshot{snap}, "", 0)
	if len(got) != 1 || got[0].Path != long[:MaxPath] || got[0].Count != 2 || !got[0].Truncated {
		t.Fatalf("got %+v, want one truncated entry of count 2 with the first %d bytes", got, MaxPath)
	}
}

// TestMergeLoops splits one stream over several sketches, as the event
// loops split the traffic, and checks the merged guarantees: Count is an
// upper bound, Count-Error a lower bound, and a heavy path is reported.
func TestMergeLoops(t *testing.T) {
	const loops, capacity, n = 4, 32, 40000
	rng := rand.New(rand.NewPCG(7, 7))
	sk := make([]*Sketch, loops)
	for i := range sk {
		sk[i] = New(capacity)
	}
	exact := map[string]uint64{}
	for i := range n {
		path := fmt.Sprintf("/rare/%d", rng.IntN(5000))
		if i%10 == 0 {
			path = "/heavy"
		}
		sk[rng.IntN(loops)].Add([]byte("h.test"), []byte(path), int64(i))
		exact[path]++
	}
	snaps := make([]*Snapshot, loops)
	for i, s := range sk {
		s.check(t)
		snaps[i] = NewSnapshot(capacity)
		s.CopyTo(snaps[i])
	}
	got := Merge(snaps, "h.test", 0)
	if len(got) == 0 || got[0].Path != "/heavy" {
		t.Fatalf("first entry %+v, want /heavy", got[:min(1, len(got))])
	}
	for _, e := range got {
		if want := exact[e.Path]; e.Count < want || e.Count-e.Error > want {
			t.Errorf("%s: count %d error %d, true count %d outside [count-error, count]", e.Path, e.Count, e.Error, want)
		}
	}
	if len(Merge(snaps, "other.test", 0)) != 0 {
		t.Error("a host filter for another host kept entries")
	}
}

// BenchmarkAdd measures one miss counted into a full sketch of the default
// capacity: a mix of repeated and new paths, so that half the adds take
// over a slot.
func BenchmarkAdd(b *testing.B) {
	s := New(65536)
	paths := make([][]byte, 1<<16)
	for i := range paths {
		paths[i] = fmt.Appendf(nil, "/some/old/path/%d/page.html", i*7919%200000)
	}
	host := []byte("www.example.com")
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		s.Add(host, paths[i&(len(paths)-1)], int64(i))
		i++
	}
}
