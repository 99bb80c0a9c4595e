package matcher_test

import (
	"strings"
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// FuzzPacked builds a packed table from "from to" lines and checks it
// against a Go map: every first from answers with its to, a repeated from
// is refused, and a near miss does not match.
func FuzzPacked(f *testing.F) {
	f.Add("/a /b\n/c /d?x=1\n/a /e\n")
	f.Add("/ /root\n/x/y https://example.com/z\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		b := matcher.NewBuilder(matcher.DefaultLimits)
		want := map[string]string{}
		dup := false
		for i, line := range strings.Split(text, "\n") {
			from, to, ok := strings.Cut(line, " ")
			r := matcher.Rule{Kind: matcher.Exact, From: from, To: to, Status: 301, File: "f.map", Line: i + 1, QueryString: matcher.QueryReplace}
			// A from with a byte no client sends as it is (a space, '"',
			// '<', '>', '\\', control or non-ASCII) is kept in the form
			// clients send it, percent-encoded, on the ordinary path, and
			// looked up that way (TestUnsentBytes): not this test's.
			unsent := strings.ContainsFunc(from, func(c rune) bool { return c <= ' ' || c >= 0x7f || strings.ContainsRune(`"<>\`, c) })
			if !ok || !strings.HasPrefix(from, "/") || strings.ContainsAny(from, "?#%") || unsent || to == "" || strings.ContainsFunc(to, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
				continue // invalid, or not packed (the ordinary path has its own tests)
			}
			if _, seen := want[from]; seen {
				dup = true
			} else {
				want[from] = to
			}
			if err := b.Add(&r); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
		}
		s, err := b.Set()
		if dup != (err != nil) {
			t.Fatalf("duplicates %v, error %v", dup, err)
		}
		if err != nil {
			return
		}
		var m matcher.Match
		for from, to := range want {
			if !s.Lookup(nil, []byte(from), nil, &m) || string(m.AppendLocation(nil, []byte("q=1"))) != to {
				t.Fatalf("%q: want %q", from, to)
			}
			if _, ok := want[from+"x"]; !ok && s.Lookup(nil, []byte(from+"x"), nil, &m) {
				t.Fatalf("%q matched", from+"x")
			}
		}
	})
}
