package matcher_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// lastRules has a rule in each store: a packed exact table entry, a
// lowered literal regex, a prefix rule on the ordinary path.
func lastRules() []matcher.Rule {
	return []matcher.Rule{
		{Kind: matcher.Exact, From: "/e", To: "/x"},
		{Kind: matcher.Regex, From: "^/lit$", To: "/y"},
		{Kind: matcher.Prefix, From: "/p/", To: "/z/"},
	}
}

func lastAnswered(s *matcher.Set) map[string]int64 {
	out := map[string]int64{}
	s.Each(func(r matcher.RuleHits) { out[r.From] = r.LastAnswered })
	return out
}

// TestLastAnswered checks that a hit stamps its rule with the Match's
// clock in each store, that a reload carries the stamps to the
// identical rules, and that a snapshot restores them into a new set.
func TestLastAnswered(t *testing.T) {
	t.Parallel()
	s := buildSet(t, lastRules())
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var m matcher.Match
	for i, p := range []string{"/e", "/lit", "/p/q"} {
		m.Now = at.Add(time.Duration(i) * time.Second).UnixNano()
		if !s.Lookup(nil, []byte(p), nil, &m) {
			t.Fatalf("no rule for %s", p)
		}
		m.Hit()
	}
	want := map[string]int64{"/e": at.Unix(), "^/lit$": at.Unix() + 1, "/p/": at.Unix() + 2}
	if diff := cmp.Diff(want, lastAnswered(s)); diff != "" {
		t.Errorf("after hits (-want +got):\n%s", diff)
	}
	carried := buildSet(t, lastRules())
	carried.CarryHits(s)
	if diff := cmp.Diff(want, lastAnswered(carried)); diff != "" {
		t.Errorf("carried (-want +got):\n%s", diff)
	}
	restored := buildSet(t, lastRules())
	if n := restored.RestoreLastAnswered(s.LastAnswered()); n != 3 {
		t.Errorf("RestoreLastAnswered set %d rules, want 3", n)
	}
	if diff := cmp.Diff(want, lastAnswered(restored)); diff != "" {
		t.Errorf("restored (-want +got):\n%s", diff)
	}
	changed := lastRules()
	changed[0].To = "/other"
	c := buildSet(t, changed)
	c.CarryHits(s)
	if got := lastAnswered(c)["/e"]; got != 0 {
		t.Errorf("a changed rule carried its last answer: %d", got)
	}
}
