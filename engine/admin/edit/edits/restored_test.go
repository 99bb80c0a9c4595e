package edits

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
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
