package matcher_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

var (
	winFrom  = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	winUntil = time.Date(2027, 1, 7, 0, 0, 0, 0, time.UTC)
)

// answer is what one lookup decided, for comparing with cmp.
type answer struct {
	Matched  bool
	Location string
	Shadow   string // the shadow rule's Location, "" when none
}

func lookupAt(t *testing.T, s *matcher.Set, now time.Time, path string) answer {
	t.Helper()
	m := matcher.Match{Now: now.UnixNano()}
	var a answer
	if s.Lookup([]byte("example.com"), []byte(path), nil, &m) {
		a.Matched, a.Location = true, string(m.AppendLocation(nil, nil))
	}
	if m.Shadowed() {
		a.Shadow = string(m.AppendShadowLocation(nil, nil))
	}
	return a
}

// TestWindows checks that a rule answers only inside its window, and that
// outside it the lookup goes on to the rule it hides, in every tier.
func TestWindows(t *testing.T) {
	w := matcher.Window{From: winFrom, Until: winUntil}
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/sale", To: "/winter", Status: 302, Active: w},
		{From: "/sale", To: "/always", Status: 301},
		{Kind: matcher.Prefix, From: "/shop/", To: "/xmas/", Status: 302, Active: w},
		{Kind: matcher.Prefix, From: "/shop/", To: "/store/", Status: 301},
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/promo/$1", Status: 302, Active: w},
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/item/$1", Status: 301},
		{From: "/opens", To: "/opened", Status: 301, Active: matcher.Window{From: winFrom}},
		{From: "/closes", To: "/closing", Status: 301, Active: matcher.Window{Until: winUntil}},
		{From: "/ci", To: "/ci-win", Status: 301, CaseInsensitive: true, Active: w},
	})
	if err != nil {
		t.Fatal(err)
	}
	before, inside, at, after := winFrom.Add(-time.Nanosecond), winFrom.Add(24*time.Hour), winUntil.Add(-time.Nanosecond), winUntil
	for _, tc := range []struct {
		path string
		now  time.Time
		want answer
	}{
		{"/sale", before, answer{Matched: true, Location: "/always"}},
		{"/sale", winFrom, answer{Matched: true, Location: "/winter"}},
		{"/sale", at, answer{Matched: true, Location: "/winter"}},
		{"/sale", after, answer{Matched: true, Location: "/always"}},
		{"/shop/a", before, answer{Matched: true, Location: "/store/a"}},
		{"/shop/a", inside, answer{Matched: true, Location: "/xmas/a"}},
		{"/shop/a", after, answer{Matched: true, Location: "/store/a"}},
		{"/r/7", before, answer{Matched: true, Location: "/item/7"}},
		{"/r/7", inside, answer{Matched: true, Location: "/promo/7"}},
		{"/r/7", after, answer{Matched: true, Location: "/item/7"}},
		{"/opens", before, answer{}},
		{"/opens", after.Add(1000 * time.Hour), answer{Matched: true, Location: "/opened"}},
		{"/closes", time.Unix(0, 1), answer{Matched: true, Location: "/closing"}},
		{"/closes", after, answer{}},
		{"/CI", inside, answer{Matched: true, Location: "/ci-win"}},
		{"/CI", after, answer{}},
	} {
		if diff := cmp.Diff(tc.want, lookupAt(t, s, tc.now, tc.path)); diff != "" {
			t.Errorf("%s at %s (-want +got):\n%s", tc.path, tc.now.Format(time.RFC3339Nano), diff)
		}
	}
}

// TestWindowZeroNowIsWallClock checks that a Match whose Now is left zero
// (tools that do not set it) compares windows with the wall clock.
func TestWindowZeroNowIsWallClock(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/past", To: "/x", Status: 301, Active: matcher.Window{Until: time.Now().Add(-time.Hour)}},
		{From: "/now", To: "/y", Status: 301, Active: matcher.Window{From: time.Now().Add(-time.Hour)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	if s.Lookup(nil, []byte("/past"), nil, &m) {
		t.Error("/past: a rule whose window is over answered")
	}
	if !s.Lookup(nil, []byte("/now"), nil, &m) {
		t.Error("/now: a rule inside its window did not answer")
	}
}

// TestShadow checks that a shadow rule answers as if absent (the lookup
// goes on to the live rule, or misses) while the lookup reports what it
// would have answered, and that its count is kept apart from live hits.
func TestShadow(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/new", To: "/shadow-new", Status: 301, Shadow: true, File: "f", Line: 1},
		{From: "/both", To: "/shadow-both", Status: 301, Shadow: true, File: "f", Line: 2},
		{From: "/both", To: "/live-both", Status: 301, File: "f", Line: 3},
		{Kind: matcher.Prefix, From: "/docs/", To: "/s-docs/", Status: 301, Shadow: true, File: "f", Line: 4},
		{Kind: matcher.Prefix, From: "/docs/v2/", To: "/live-v2/", Status: 301, File: "f", Line: 5},
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/s-r/$1", Status: 301, Shadow: true, File: "f", Line: 6},
		{Kind: matcher.Regex, From: `^/r/(.*)$`, To: "/live-r/$1", Status: 301, File: "f", Line: 7},
		{Kind: matcher.Regex, From: `^/late/`, To: "/s-late", Status: 301, Shadow: true, File: "f", Line: 8},
		{Kind: matcher.Prefix, From: "/late/", To: "/live-late/", Status: 301, File: "f", Line: 9},
		{From: "/two", To: "/first", Status: 301, Shadow: true, File: "f", Line: 10},
		{Kind: matcher.Prefix, From: "/two", To: "/second", Status: 301, Shadow: true, File: "f", Line: 11},
		{From: "/win", To: "/s-win", Status: 301, Shadow: true, Active: matcher.Window{Until: winFrom}, File: "f", Line: 12},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want answer
	}{
		{"/new", answer{Shadow: "/shadow-new"}},
		{"/both", answer{Matched: true, Location: "/live-both", Shadow: "/shadow-both"}},
		{"/docs/a", answer{Shadow: "/s-docs/a"}},
		// The live longer prefix would have won anyway: no shadow answer.
		{"/docs/v2/a", answer{Matched: true, Location: "/live-v2/a"}},
		{"/r/12", answer{Matched: true, Location: "/live-r/12", Shadow: "/s-r/12"}},
		{"/r/x", answer{Matched: true, Location: "/live-r/x"}},
		// A live prefix rule comes before any regex: the shadow regex
		// would not have answered.
		{"/late/a", answer{Matched: true, Location: "/live-late/a"}},
		// Of two shadow rules the first tried is recorded.
		{"/two", answer{Shadow: "/first"}},
		{"/win", answer{}},
		{"/none", answer{}},
	} {
		if diff := cmp.Diff(tc.want, lookupAt(t, s, winFrom.Add(time.Hour), tc.path)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.path, diff)
		}
	}

	var m matcher.Match
	for range 3 {
		s.Lookup(nil, []byte("/both"), nil, &m)
		m.Hit()
		m.ShadowHit()
	}
	s.Lookup(nil, []byte("/new"), nil, &m)
	if got := m.ShadowSource(); got != "f:1" {
		t.Errorf("ShadowSource = %q, want f:1", got)
	}
	m.ShadowHit()
	type counts struct{ Hits, Shadow uint64 }
	got := map[string]counts{}
	s.Each(func(r matcher.RuleHits) { got[r.Source()] = counts{r.Hits, r.ShadowHits} })
	want := map[string]counts{"f:1": {0, 1}, "f:2": {0, 3}, "f:3": {3, 0}}
	for src, w := range want {
		if diff := cmp.Diff(w, got[src]); diff != "" {
			t.Errorf("%s counts (-want +got):\n%s", src, diff)
		}
	}
}

// TestGateErrors checks the rules Compile refuses, and that a window or
// shadow mode makes a rule distinct from a plain one of the same path.
func TestGateErrors(t *testing.T) {
	_, err := matcher.Compile([]matcher.Rule{
		{From: "/a", To: "/b", Status: 301, Active: matcher.Window{From: winUntil, Until: winFrom}},
	})
	if err == nil {
		t.Error("a window whose from is after its until compiled")
	}
	_, err = matcher.Compile([]matcher.Rule{
		{From: "/a", To: "/b", Status: 301, Active: matcher.Window{From: winFrom}},
		{From: "/a", To: "/b", Status: 301, Active: matcher.Window{From: winFrom}},
	})
	if err == nil {
		t.Error("two rules with the same path and window compiled")
	}
	_, err = matcher.Compile([]matcher.Rule{
		{From: "/a", To: "/b", Status: 301},
		{From: "/a", To: "/c", Status: 301, Active: matcher.Window{From: winFrom}},
		{From: "/a", To: "/d", Status: 301, Shadow: true},
	})
	if err != nil {
		t.Errorf("a plain, a windowed and a shadow rule for one path: %v", err)
	}
}
