package syntax

import "testing"

// FuzzQuote: whatever s holds, the Lexer reads Quote(s) back as the one
// word s, followed by the ';' written after it.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "/a", "/a b", `^/a\.b$`, `^/x\t`, `a"b`, `a\`, "a;b", "#x", "{x}", "${uri}", "a'b", "a\nb", `\\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := Quote(s)
		l := New(q + ";")
		tok, err := l.Next()
		if err != nil || tok.Kind != Word || tok.Text != s {
			t.Fatalf("Quote(%q) = %s, read back as %+v, %v", s, q, tok, err)
		}
		if tok, err := l.Next(); err != nil || tok.Kind != Semicolon {
			t.Fatalf("Quote(%q) = %s: then %+v, %v, want ';'", s, q, tok, err)
		}
	})
}
