package importer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// metaOf is what PatternMeta yields for p, as "index:byte" pairs.
func metaOf(p string) []string {
	var out []string
	for i, c := range PatternMeta(p) {
		out = append(out, string(rune('0'+i%10))+":"+string(c))
	}
	return out
}

// TestPatternMeta: escapes and classes (a ']' first in one included)
// are passed over, everything else is yielded with its index.
func TestPatternMeta(t *testing.T) {
	tests := []struct {
		p    string
		want []string
	}{
		{`a|b`, []string{"0:a", "1:|", "2:b"}},
		{`\(x\)`, []string{"2:x"}},
		{`[(|]x`, []string{"4:x"}},
		{`[]|]x`, []string{"4:x"}},
		{`[^]|]x`, []string{"5:x"}},
		{`[\]|]x`, []string{"5:x"}},
		{`(a)`, []string{"0:(", "1:a", "2:)"}},
		{`^[a`, []string{"0:^"}},
		{`a\`, []string{"0:a"}},
		{``, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, metaOf(tt.p)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.p, diff)
		}
	}
}

// FuzzPatternMeta: any pattern is walked to its end without a panic,
// each index yielded once, rising, and with its byte.
func FuzzPatternMeta(f *testing.F) {
	for _, s := range []string{`^/(a|b)/[^]/]+\.html$`, `[`, `\`, `[^`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		last := -1
		for i, c := range PatternMeta(p) {
			if i <= last || i >= len(p) || p[i] != c {
				t.Fatalf("%q: yielded %d %q after %d", p, i, c, last)
			}
			last = i
		}
	})
}
