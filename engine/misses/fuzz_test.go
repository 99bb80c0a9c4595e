package misses

import (
	"fmt"
	"testing"
)

// FuzzSketch drives a small sketch with arbitrary streams of keys (each
// byte picks a host and a path from small sets, so keys repeat) and
// checks the stream-summary's structure after every Add, and space-saving's
// guarantees against exact counts at the end.
func FuzzSketch(f *testing.F) {
	f.Add(uint8(3), []byte("aaabacadaeafagah"))
	f.Add(uint8(1), []byte("abcabcabc"))
	f.Add(uint8(8), []byte{0, 1, 2, 3, 0, 0, 0, 200, 201, 202, 0})
	f.Fuzz(func(t *testing.T, capacity uint8, stream []byte) {
		if capacity == 0 || len(stream) > 2000 {
			return
		}
		s := New(int(capacity))
		exact := map[string]uint64{}
		for i, c := range stream {
			host := fmt.Sprintf("h%d", c>>6)
			path := fmt.Sprintf("/p%d", c&63)
			s.Add([]byte(host), []byte(path), int64(i))
			exact[host+path]++
			s.check(t)
		}
		snap := NewSnapshot(s.Cap())
		s.CopyTo(snap)
		n, k := uint64(len(stream)), uint64(capacity)
		got := map[string]bool{}
		for _, e := range Merge([]*Snapshot{snap}, "", 0) {
			key := e.Host + e.Path
			got[key] = true
			if want := exact[key]; e.Count < want || e.Count-e.Error > want || e.Error > n/k {
				t.Errorf("%s: count %d error %d, true %d, N/k %d", key, e.Count, e.Error, want, n/k)
			}
		}
		for key, c := range exact {
			if c > n/k && !got[key] {
				t.Errorf("%s seen %d times (> N/k = %d) is not tracked", key, c, n/k)
			}
		}
	})
}
