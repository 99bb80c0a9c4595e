//go:build !race

package misses

import (
	"fmt"
	"testing"
)

// TestAddAllocs checks the hot-path contract: counting a miss allocates
// nothing, for a key already tracked, a new key in a free slot, and a
// new key that takes a slot over. (The race detector allocates, hence
// the build tag.)
func TestAddAllocs(t *testing.T) {
	s := New(128)
	paths := make([][]byte, 1000)
	for i := range paths {
		paths[i] = fmt.Appendf(nil, "/p/%d", i)
	}
	long := make([]byte, 2*MaxPath)
	long[0] = '/'
	i := 0
	if n := testing.AllocsPerRun(5000, func() {
		s.Add([]byte("Example.com:80"), paths[i%len(paths)], int64(i))
		s.Add([]byte("example.com"), paths[0], int64(i))
		s.Add([]byte("example.com"), long, int64(i))
		i++
	}); n != 0 {
		t.Fatalf("Add allocates %.1f times per run, want 0", n)
	}
}
