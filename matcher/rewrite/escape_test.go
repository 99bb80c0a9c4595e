package rewrite

import (
	"fmt"
	"testing"
)

// appendLocationSafe escapes exactly the bytes a Location cannot carry,
// alone and inside runs of bytes it keeps, and keeps the rest.
func TestAppendLocationSafe(t *testing.T) {
	unsafe := func(c byte) bool {
		return c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}'
	}
	for c := range 256 {
		b := byte(c)
		want := string([]byte{b})
		if unsafe(b) {
			want = fmt.Sprintf("%%%02X", b)
		}
		for _, tc := range []struct{ in, want string }{
			{string([]byte{b}), want},
			{"/a/" + string([]byte{b}) + "b/c", "/a/" + want + "b/c"},
			{string([]byte{b, b}) + "x", want + want + "x"},
		} {
			if got := string(appendLocationSafe([]byte("<"), []byte(tc.in))); got != "<"+tc.want {
				t.Errorf("appendLocationSafe(%q) = %q, want %q", tc.in, got[1:], tc.want)
			}
		}
	}
}
