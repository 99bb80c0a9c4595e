package nginx

import (
	"testing"

	"github.com/redirectd/redirectd/config/syntax"
)

// TestMapWord checks that each word written into a map file reads back as
// itself through the nginx lexer, which keeps a backslash except before a
// double quote, a single quote, a backslash, t, r and n, and reads `""`
// as the empty word.
func TestMapWord(t *testing.T) {
	for _, w := range []string{
		`/plain`, `^/GPT-3\).*$`, `^/a\.b$`, `^/x\t`, `^/x\\t`, `/a"b`, `/a'b`, `/a;b`, `/a b`, `/a#b`,
		``, `/end\`, `~*^/(?P<n>\d+)$`, `/{x}`, `\n\r`,
	} {
		text := "k " + syntax.Quote(w) + ";\n"
		dirs, err := Parse("w.map", []byte(text))
		if err != nil {
			t.Errorf("syntax.Quote(%q) = %s, which does not parse: %v", w, text, err)
			continue
		}
		if len(dirs) != 1 || len(dirs[0].Args) != 1 || dirs[0].Args[0] != w {
			t.Errorf("syntax.Quote(%q) = %s, read back as %q", w, text, dirs[0].Args)
		}
	}
}
