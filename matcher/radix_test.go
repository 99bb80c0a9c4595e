package matcher

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// TestRadixCompact: a tree laid out again by compact answers every path
// as it did, and holds its nodes in the arrays compact made.
func TestRadixCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			b[i] = "/abc.d"[rng.IntN(6)]
		}
		return string(b)
	}
	tree := newRadix()
	for i := range 2000 {
		tree.insert(word(), int32(i))
	}
	var paths []string
	for range 5000 {
		paths = append(paths, word()+word())
	}
	answers := func() []string {
		var out []string
		for _, p := range paths {
			v, end, ok := tree.longest([]byte(p))
			out = append(out, fmt.Sprint(v, end, ok))
		}
		return out
	}
	before := answers()
	tree.compact()
	if diff := cmp.Diff(before, answers()); diff != "" {
		t.Errorf("answers after compact (-before +after):\n%s", diff)
	}
	// A node's children lie next to each other in one array.
	kids := tree.root.children
	for i := 1; i < len(kids); i++ {
		if uintptr(unsafe.Pointer(kids[i]))-uintptr(unsafe.Pointer(kids[i-1])) != unsafe.Sizeof(radixNode{}) {
			t.Fatalf("children %d and %d are not neighbours in one array", i-1, i)
		}
	}
}
