package edits

import (
	"github.com/redirectd/redirectd/engine/admin/edit"
	"testing"

	"github.com/redirectd/redirectd/matcher"
)

// TestApplyKeepsLocations: the rules an edit builds serve the config's
// locations as the rules it started from did.
func TestApplyKeepsLocations(t *testing.T) {
	base, err := matcher.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	phase := new(int) // what the Set carries is opaque to it
	base.SetLocations(phase)
	got, _, err := Apply(base, FromEdits([]edit.Edit{mkEdit(edit.OpAdd, "", "/a", "/b", 301)}), matcher.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if got.Locations() != any(phase) {
		t.Fatalf("Locations() = %v, want the base's", got.Locations())
	}
}
