package matcher

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzBacktrack checks that the port agrees with regexp.FindSubmatchIndex on
// match and every capture offset, for any pattern regexp accepts.
func FuzzBacktrack(f *testing.F) {
	for _, tc := range backtrackCases {
		for _, in := range tc.inputs {
			f.Add(tc.pattern, []byte(in))
		}
	}
	var s Scratch // reused across inputs, as an event loop reuses its own
	f.Fuzz(func(t *testing.T, pattern string, input []byte) {
		// Rules are short; the length caps keep each run fast.
		if len(pattern) > 200 {
			t.Skip()
		}
		if len(input) > 4<<10 {
			input = input[:4<<10]
		}
		re, err := regexp.Compile(pattern)
		if err != nil {
			t.Skip()
		}
		p, err := compileProgram(pattern)
		if err != nil {
			t.Fatalf("regexp accepts %q but compileProgram says: %v", pattern, err)
		}
		// A 200-byte pattern can still compile to a huge program; its visited
		// bitmap would take more memory than the fuzzer should spend
		// (2^24 bits = 2 MiB, above the ~5 Mi bits of a 300-instruction
		// program on a 16 KiB path).
		if len(p.prog.Inst)*(len(input)+1) > 1<<24 {
			t.Skip()
		}
		if got, want := p.numSubexp(), re.NumSubexp(); got != want {
			t.Fatalf("%q: numSubexp() = %d, want %d", pattern, got, want)
		}
		if diff := cmp.Diff(backtrackFind(t, p, input, &s), re.FindSubmatchIndex(input)); diff != "" {
			t.Errorf("%q on %q: mismatch with regexp (-got +want):\n%s", pattern, input, diff)
		}
	})
}
