//go:build !race

package pcre

import "testing"

// TestMatchAllocs checks that Match allocates nothing once its Scratch
// has grown: every construct, on its path, after one warm-up run.
func TestMatchAllocs(t *testing.T) {
	var s Scratch
	for _, c := range constructs {
		re, err := Compile(c.re, c.ci)
		if err != nil {
			t.Fatal(err)
		}
		in := []byte(c.in)
		caps := make([]int, 2*(re.NumSubexp()+1))
		match := func() {
			budget := 1 << 20
			re.Match(&s, in, caps, &budget)
		}
		match()
		if n := testing.AllocsPerRun(100, match); n != 0 {
			t.Errorf("%q on %q: %v allocations per Match", c.re, c.in, n)
		}
	}
}
