//go:build !race

package matcher

import "testing"

// TestLocationEncodingAllocs holds the cases to no allocation.
func TestLocationEncodingAllocs(t *testing.T) {
	s, err := Compile(encodingRules)
	if err != nil {
		t.Fatal(err)
	}
	var m Match
	dst := make([]byte, 0, 512)
	for _, c := range locationCases {
		path, q, host := []byte(c.path), []byte(c.query), []byte("example.com")
		allocs := testing.AllocsPerRun(100, func() {
			if s.Lookup(host, path, q, &m) {
				dst = m.AppendLocation(dst[:0], q)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations, want 0", c.path, allocs)
		}
	}
}
