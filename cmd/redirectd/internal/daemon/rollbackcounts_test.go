package daemon

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
)

// TestOverlayCounts: a rollback's counts. Rolling back to a version
// whose 500 added rules the serving one lacks (it is a rollback to
// version 0) counted them as 500 changed ("+0 ~500 -0").
func TestOverlayCounts(t *testing.T) {
	adds := func(n int, to string) *edits.Overlay {
		o := edits.NewOverlay()
		for i := range n {
			o.Put(edits.Edit{Entry: edits.Entry{Op: edits.OpAdd, From: "/p" + strconv.Itoa(i), To: to, Status: 301}})
		}
		return o
	}
	one := func(op, to string) *edits.Overlay {
		o := edits.NewOverlay()
		o.Put(edits.Edit{Entry: edits.Entry{Op: op, From: "/p0", To: to, Status: 301}})
		return o
	}
	tests := []struct {
		name        string
		cur, target *edits.Overlay
		want        edit.Counts
	}{
		{"500 adds come back", edits.NewOverlay(), adds(500, "/x"), edit.Counts{Added: 500}},
		{"500 adds go", adds(500, "/x"), edits.NewOverlay(), edit.Counts{Removed: 500}},
		{"500 targets differ", adds(500, "/x"), adds(500, "/y"), edit.Counts{Changed: 500}},
		{"the same", adds(3, "/x"), adds(3, "/x"), edit.Counts{}},
		{"a deleted config rule comes back", one(edits.OpDelete, ""), edits.NewOverlay(), edit.Counts{Added: 1}},
		{"a config rule is deleted", edits.NewOverlay(), one(edits.OpDelete, ""), edit.Counts{Removed: 1}},
		{"a deleted add comes back", one(edits.OpDelete, ""), one(edits.OpAdd, "/x"), edit.Counts{Added: 1}},
		{"a config rule's change", edits.NewOverlay(), one(edits.OpChange, "/x"), edit.Counts{Changed: 1}},
		{"a change undone", one(edits.OpChange, "/x"), edits.NewOverlay(), edit.Counts{Changed: 1}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, overlayCounts(tt.cur, tt.target)); diff != "" {
			t.Errorf("%s: counts (-want +got):\n%s", tt.name, diff)
		}
	}
}
