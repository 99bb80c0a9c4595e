package shorten

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestText(t *testing.T) {
	long := strings.Repeat("x", 70)
	for _, tt := range []struct {
		s    string
		max  int
		want string
	}{
		{"", 64, ""},
		{"short", 64, "short"},
		{long[:64], 64, long[:64]},
		{long[:65], 64, long[:64] + "..."},
		{long, 40, long[:40] + "..."},
		// Bytes are counted, so a cut may split a character.
		{"\u00e9\u00e9", 3, "\u00e9\xc3..."},
	} {
		if diff := cmp.Diff(tt.want, Text(tt.s, tt.max)); diff != "" {
			t.Errorf("Text(%q, %d): -want +got\n%s", tt.s, tt.max, diff)
		}
	}
}
