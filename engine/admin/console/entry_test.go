package console

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestConditionsTextRoundTrip: the conditions an Edit link fills in
// read back as the conditions given, whatever their names and values
// hold.
func TestConditionsTextRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q    map[string]string
		when map[string]any
	}{
		{nil, map[string]any{"scheme": "https"}},
		{map[string]string{"a b": `x"y\z`}, map[string]any{"header": map[string]any{"X-A": "\t1"}, "sample": 0.25, "unless": map[string]any{"cookie": map[string]any{"seen": "*"}}}},
		{map[string]string{"id": "5"}, nil},
	} {
		text := edit.ConditionsTOML(tc.q, tc.when)
		q, when, err := formConditions(text)
		if err != nil {
			t.Errorf("%q does not read back: %v", text, err)
			continue
		}
		if d := cmp.Diff(tc.q, q); d != "" {
			t.Errorf("%q: query (-given +read):\n%s", text, d)
		}
		if d := cmp.Diff(tc.when, when); d != "" {
			t.Errorf("%q: when (-given +read):\n%s", text, d)
		}
	}
}

// FuzzFormConditions: whatever is typed into the conditions and
// headers fields is read or refused, never a panic; conditions read
// are written back (for an Edit link) as text that reads as the same.
func FuzzFormConditions(f *testing.F) {
	f.Add("scheme = \"https\"\nheader = { X-Beta = \"1\" }", "Cache-Control: no-store")
	f.Add("query = { id = \"5\" }\nlanguage = [\"de\"]", "")
	f.Add("query = 1", "X")
	f.Fuzz(func(t *testing.T, conds, headers string) {
		formHeaders(headers)
		q, when, err := formConditions(conds)
		if err != nil || !plainValues(when) {
			return
		}
		text := edit.ConditionsTOML(q, when)
		q2, when2, err := formConditions(text)
		if err != nil {
			t.Fatalf("%q read, written as %q, which does not read: %v", conds, text, err)
		}
		if d := cmp.Diff(q, q2); d != "" {
			t.Fatalf("%q: query (-read +written and read):\n%s", conds, d)
		}
		if d := cmp.Diff(when, when2); d != "" {
			t.Fatalf("%q: when (-read +written and read):\n%s", conds, d)
		}
	})
}

// plainValues reports whether v holds only the values conditions take
// (strings, numbers, lists and tables of them); a TOML datetime is
// refused by the editing model, not written back.
func plainValues(v any) bool {
	switch x := v.(type) {
	case nil, string, float64, int64, bool:
		return true
	case []any:
		for _, y := range x {
			if !plainValues(y) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, y := range x {
			if !plainValues(y) {
				return false
			}
		}
		return true
	}
	return false
}
