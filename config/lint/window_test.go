package lint

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/matcher"
)

// TestWindowFindings checks that a window already over is a warning, one
// still open or to come is none, and that a windowed or shadow rule does
// not make the plain rule of its path unreachable.
func TestWindowFindings(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rules := []matcher.Rule{
		{From: "/over", To: "/x", Status: 301, File: "r.toml", Line: 1, Active: matcher.Window{Until: now}},
		{From: "/open", To: "/x", Status: 301, File: "r.toml", Line: 2, Active: matcher.Window{Until: now.Add(time.Second)}},
		{From: "/later", To: "/x", Status: 301, File: "r.toml", Line: 3, Active: matcher.Window{From: now.Add(time.Hour)}},
		{From: "/open", To: "/y", Status: 301, File: "r.toml", Line: 4},
		{Kind: matcher.Regex, From: "^/r/", To: "/s", Status: 301, File: "r.toml", Line: 5, Shadow: true},
		{Kind: matcher.Regex, From: "^/r/", To: "/t", Status: 301, File: "r.toml", Line: 6},
	}
	got := append(windows(rules, now), unreachable(rules, false)...)
	want := []Finding{{Severity: Warning, Kind: "window",
		Message: "the rule's window ended at 2026-12-01T00:00:00Z; it no longer answers and can be removed",
		Rules:   []RuleRef{{Source: "r.toml:1", From: "/over", To: "/x"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
