package matcher

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortGrams checks the radix sort of grams against slices.Sort.
func TestSortGrams(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tmp []uint32
	for _, n := range []int{0, 1, 2, 3, 17, 1000, 8190} {
		gs := make([]uint32, n)
		for i := range gs {
			gs[i] = rng.Uint32() & 0xffffff
			if i%3 == 0 && i > 0 {
				gs[i] = gs[i-1] // repeats, as a path repeating a gram
			}
		}
		want := slices.Clone(gs)
		slices.Sort(want)
		var got []uint32
		got, tmp = sortGrams(gs, tmp)
		if !slices.Equal(got, want) {
			t.Fatalf("sortGrams of %d grams is not sorted", n)
		}
	}
}
