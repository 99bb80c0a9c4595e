package matcher

import (
	"testing"
)

// TestBuilderKeepStrings: with KeepStrings a Set keeps the caller's From
// (a map's index keeps its map's keys), without it a copy; the Set
// answers alike.
func TestBuilderKeepStrings(t *testing.T) {
	file := "~^/old/page$ ~^/old/(a|b)x+$"
	lowered, real := file[1:12], file[14:]
	for _, keep := range []bool{false, true} {
		b := NewBuilder(DefaultLimits)
		if keep {
			b.KeepStrings()
		}
		for i, from := range []string{lowered, real} {
			if err := b.Add(&Rule{Kind: Regex, From: from, To: "/new", Status: 301, Line: i + 1}); err != nil {
				t.Fatal(err)
			}
		}
		set, err := b.Set()
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range set.Rules() {
			if got := within(r.From, file); got != keep {
				t.Errorf("keep %v, rule %d: From within the caller's string: %v", keep, i, got)
			}
		}
		var m Match
		for _, p := range []string{"/old/page", "/old/bxx"} {
			if !set.Lookup(nil, []byte(p), nil, &m) || m.Line() == 0 {
				t.Errorf("keep %v: %s not answered", keep, p)
			}
		}
		if set.Lookup(nil, []byte("/old/cx"), nil, &m) {
			t.Errorf("keep %v: /old/cx answered", keep)
		}
	}
}
