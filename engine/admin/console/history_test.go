package console

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/internal/browsertest"
)

// hitRules is rules with these hits, a.example's /r0, /r1, ...
func hitRules(version string, hits ...uint64) *index {
	var list []admin.RuleInfo
	for i, h := range hits {
		list = append(list, admin.RuleInfo{Kind: "exact", Host: "a.example", From: "/r" + strconv.Itoa(i), To: "/x", Status: 301, Hits: h})
	}
	return buildIndex(list, version, time.Time{})
}

// TestHitHistory: samples of the hit counters add up per day; a version
// change does not count the new counters twice; a day's file outlives a
// restart; today's counts stay bounded, and days over 30 go.
func TestHitHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h, err := newHitHistory(dir)
	if err != nil {
		t.Fatal(err)
	}
	day1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h.observe(hitRules("v1", 5, 0), day1)                    // since start
	h.observe(hitRules("v1", 7, 3), day1.Add(time.Hour))     // +2, +3
	h.observe(hitRules("v2", 1, 1), day1.Add(2*time.Hour))   // a new version: its counters are not new hits
	h.observe(hitRules("v2", 4, 1), day1.Add(20*time.Hour))  // day 2 (06:00 UTC): +3
	h.observe(hitRules("v2", 10, 2), day1.Add(21*time.Hour)) // +6, +1
	day2 := day1.Add(21 * time.Hour)
	got := func(h *hitHistory, from string) map[string]uint64 {
		m := map[string]uint64{}
		for _, dc := range h.rule("a.example", from, day2) {
			if dc.N > 0 {
				m[dc.Day] = dc.N
			}
		}
		return m
	}
	if diff := cmp.Diff(map[string]uint64{"2026-12-01": 7, "2026-12-02": 9}, got(h, "/r0")); diff != "" {
		t.Errorf("/r0 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]uint64{"2026-12-01": 3, "2026-12-02": 1}, got(h, "/r1")); diff != "" {
		t.Errorf("/r1 (-want +got):\n%s", diff)
	}
	// A restart reads the files: day 2 was written at its first sample
	// and a minute or more later.
	h2, _ := newHitHistory(dir)
	h2.observe(hitRules("v2"), day2.Add(time.Minute))
	if diff := cmp.Diff(map[string]uint64{"2026-12-01": 7, "2026-12-02": 9}, got(h2, "/r0")); diff != "" {
		t.Errorf("/r0 after a restart (-want +got):\n%s", diff)
	}

	// Bounded: a day of more rules than keep keeps the most hit.
	h3, _ := newHitHistory(t.TempDir())
	h3.keep = 100
	hits := make([]uint64, 1000)
	for i := range hits {
		hits[i] = uint64(i + 1)
	}
	h3.observe(hitRules("v1", hits...), day1)
	if n := len(h3.counts); n > 2*h3.keep {
		t.Errorf("today's counts hold %d rules, over %d", n, 2*h3.keep)
	}
	data, _ := os.ReadFile(h3.file("2026-12-01"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 100 || lines[0] != `1000 "a.example" "/r999"` {
		t.Errorf("the day's file: %d lines, first %q", len(lines), lines[0])
	}
	// Thirty days later day 1's file is gone.
	h3.observe(hitRules("v1", hits...), day1.AddDate(0, 0, 30))
	if _, err := os.Stat(h3.file("2026-12-01")); !os.IsNotExist(err) {
		t.Errorf("a day over 30 days old is kept: %v", err)
	}
	if names, _ := filepath.Glob(filepath.Join(h3.dir, "hits-*.txt")); len(names) != 1 {
		t.Errorf("files: %v", names)
	}
}

// TestHitHistoryBrowser: a rule's hits link to its history, a small
// bar chart of 30 days and a table of the days with hits.
func TestHitHistoryBrowser(t *testing.T) {
	t.Parallel()
	browsertest.Find(t)
	f := newFake()
	base, c := serve(t, admin.Options{}, f)
	h, err := newHitHistory(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	c.setHistory(h)
	h.observe(buildIndex(f.Rules(), "", now), now) // /old-a: 3 hits
	ctx := browsertest.Start(t)
	dir := browsertest.Artifacts(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/ui/rules?q=old-a")); err != nil {
		t.Fatal(err)
	}
	browsertest.Shot(t, ctx, dir, "rules-history")
	browsertest.CheckA11y(t, ctx, "rules-history")
	if err := browsertest.Submit(ctx, `a[aria-label^="Hit history of a.example/old-a"]`); err != nil {
		t.Fatal(err)
	}
	if got := text(t, ctx, "#hits tbody"); !strings.Contains(got, now.UTC().Format(time.DateOnly)) || !strings.Contains(got, "3") {
		t.Errorf("the history's table: %q", got)
	}
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#hits-chart rect').length`))
	if err != nil || bars != historyDays {
		t.Errorf("the chart has %d bars (%v), want %d", bars, err, historyDays)
	}
	browsertest.Shot(t, ctx, dir, "hit-history")
	browsertest.CheckA11y(t, ctx, "hit-history")
}
