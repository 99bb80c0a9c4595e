package edits

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestOverlayCounts: a rollback's counts. Rolling back to a version
// whose 500 added rules the serving one lacks (it is a rollback to
// version 0) counted them as 500 changed ("+0 ~500 -0").
func TestOverlayCounts(t *testing.T) {
	adds := func(n int, to string) *Overlay {
		o := NewOverlay()
		for i := range n {
			o.Put(edit.Edit{Entry: edit.Entry{Op: edit.OpAdd, From: "/p" + strconv.Itoa(i), To: to, Status: 301}})
		}
		return o
	}
	one := func(op, to string) *Overlay {
		o := NewOverlay()
		o.Put(edit.Edit{Entry: edit.Entry{Op: op, From: "/p0", To: to, Status: 301}})
		return o
	}
	tests := []struct {
		name        string
		cur, target *Overlay
		want        edit.Counts
	}{
		{"500 adds come back", NewOverlay(), adds(500, "/x"), edit.Counts{Added: 500}},
		{"500 adds go", adds(500, "/x"), NewOverlay(), edit.Counts{Removed: 500}},
		{"500 targets differ", adds(500, "/x"), adds(500, "/y"), edit.Counts{Changed: 500}},
		{"the same", adds(3, "/x"), adds(3, "/x"), edit.Counts{}},
		{"a deleted config rule comes back", one(edit.OpDelete, ""), NewOverlay(), edit.Counts{Added: 1}},
		{"a config rule is deleted", NewOverlay(), one(edit.OpDelete, ""), edit.Counts{Removed: 1}},
		{"a deleted add comes back", one(edit.OpDelete, ""), one(edit.OpAdd, "/x"), edit.Counts{Added: 1}},
		{"a config rule's change", NewOverlay(), one(edit.OpChange, "/x"), edit.Counts{Changed: 1}},
		{"a change undone", one(edit.OpChange, "/x"), NewOverlay(), edit.Counts{Changed: 1}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, *overlayCounts(tt.cur, tt.target)); diff != "" {
			t.Errorf("%s: counts (-want +got):\n%s", tt.name, diff)
		}
	}
}
