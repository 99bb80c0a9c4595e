package edits

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/matcher"
)

// TestRollbackRestores: a rollback served as version 7 stamps the edits
// it serves again Restored 7, keeping each edit's editor (By, Version);
// an edit the serving version holds as it is keeps its own stamp (it
// did not come back: it never left), and a later promote's edits carry
// none.
func TestRollbackRestores(t *testing.T) {
	ed := func(from, to string, version, restored int) edit.Edit {
		return edit.Edit{Entry: edit.Entry{Op: edit.OpAdd, From: from, To: to, Status: 301}, By: "ed", Version: version, Restored: restored}
	}
	cur := FromEdits([]edit.Edit{
		ed("/changed", "/v5", 5, 0),      // v3's /changed was changed by v5
		ed("/same", "/s", 2, 4),          // unchanged since v2, brought back by v4
		ed("/same-target", "/t", 6, 0),   // v6 set what v3 had: still v6's
		ed("/only-now", "/n", 5, 0),      // not in v3: goes
		ed("/gone-and-back", "/g", 2, 0), // as in v3
	})
	target := []edit.Edit{
		ed("/changed", "/v3", 3, 0),
		ed("/same", "/s", 2, 4),
		ed("/same-target", "/t", 3, 0),
		ed("/deleted-since", "/d", 3, 0),
		ed("/gone-and-back", "/g", 2, 0),
	}
	got := map[string]int{}
	for _, e := range restored(cur, target, 7).Edits() {
		got[e.From] = e.Restored
		if e.By != "ed" || e.Version == 7 {
			t.Errorf("%s: by %q, version %d: the editor's must stay", e.From, e.By, e.Version)
		}
	}
	want := map[string]int{"/changed": 7, "/same": 4, "/same-target": 7, "/deleted-since": 7, "/gone-and-back": 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Restored by edit (-want +got):\n%s", diff)
	}
	for _, e := range FromEdits(target).MergeStamped(FromEdits([]edit.Edit{ed("/changed", "/v8", 0, 7)}), 8).Edits() {
		if e.From == "/changed" && (e.Version != 8 || e.Restored != 0) {
			t.Errorf("a promote's edit after a rollback: version %d, restored %d; want 8 and none", e.Version, e.Restored)
		}
	}
}

// TestRollbackToConfig: a rollback to a version that does not edit a
// rule the serving one changes or deletes (version 0, the config's own
// rules) marks it as the config's again, stamped by the rollback
// (OpConfig), so that it names who brought it back; a mark already
// serving keeps its stamp, a rule only the serving version adds goes
// unmarked. The marks apply nothing: the rules are the config's, each
// in its place, and a rule the config no longer has is not reported
// gone.
func TestRollbackToConfig(t *testing.T) {
	cur := FromEdits([]edit.Edit{
		{Entry: edit.Entry{Op: edit.OpChange, From: "/changed", To: "/v1", Status: 302}, By: "ed", Version: 1},
		{Entry: edit.Entry{Op: edit.OpDelete, From: "/deleted"}, By: "ed", Version: 1},
		{Entry: edit.Entry{Op: edit.OpAdd, From: "/added", To: "/a", Status: 301}, By: "ed", Version: 1},
		{Entry: edit.Entry{Op: edit.OpConfig, From: "/marked"}, Restored: 2},
		{Entry: edit.Entry{Op: edit.OpConfig, From: "/config-dropped"}, Restored: 2},
	})
	target := restored(cur, nil, 5)
	got := map[string]string{}
	for _, e := range target.Edits() {
		got[e.From] = e.Op + "@" + strconv.Itoa(e.Restored)
	}
	want := map[string]string{"/changed": "config@5", "/deleted": "config@5", "/marked": "config@2", "/config-dropped": "config@2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the rollback's edits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(edit.Counts{Added: 1, Changed: 1, Removed: 1}, *overlayCounts(cur, target)); diff != "" {
		t.Errorf("the rollback's counts (-want +got):\n%s", diff)
	}
	base := set(t, matcher.Rule{Kind: matcher.Exact, From: "/changed", To: "/c"}, matcher.Rule{Kind: matcher.Exact, From: "/deleted", To: "/d"},
		matcher.Rule{Kind: matcher.Exact, From: "/marked", To: "/m"})
	out, gone, err := Apply(base, target, matcher.DefaultLimits)
	if err != nil || len(gone) > 0 {
		t.Fatalf("Apply: %v, gone %q", err, gone)
	}
	if diff := cmp.Diff(briefs(base), briefs(out)); diff != "" {
		t.Errorf("the rules after a rollback to the config (-config +served):\n%s", diff)
	}
	if e, ok := target.For(&matcher.Rule{From: "/changed"}); !ok || e.Op != edit.OpConfig || e.Restored != 5 {
		t.Errorf("/changed's edit after the rollback: %+v, %v; want the config's mark of version 5", e, ok)
	}
}
