//go:build !race

// The race detector allocates on its own, so this runs without it.

package proxyproto

import "testing"

// TestParseAllocs holds Parse to its contract: nothing allocated for any
// header it accepts, and nothing for the refusals a connection may send
// either (ErrMissing and ErrMalformed are package values).
func TestParseAllocs(t *testing.T) {
	for name, in := range benchInputs() {
		t.Run(name, func(t *testing.T) {
			var h Header
			allocs := testing.AllocsPerRun(100, func() { Parse(in, &h) })
			if allocs != 0 {
				t.Errorf("Parse allocated %v times per run, want 0", allocs)
			}
		})
	}
}
