package edits

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestListKept: after a restart, the versions the commit record keeps
// are listed after the one serving, newest first, then the config's
// own (version 0), each named by the config's hash mixed with its
// number, up to the versions kept.
func TestListKept(t *testing.T) {
	st, err := OpenStore(t.TempDir(), 10)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 3; n++ {
		if err := st.Write(&edit.Version{Number: n, Author: "ed", Message: "m"}); err != nil {
			t.Fatal(err)
		}
		if err := st.Commit(n); err != nil {
			t.Fatal(err)
		}
	}
	ed := NewState(Options{})
	ed.store = st
	local := edit.Version{Hash: "0123456789ab", Source: "file:r.toml"}
	var vl VersionLog
	vl.SetKeep(3)
	vl.Record(ed.Describe(local, &edit.Version{Number: 3, Author: "ed"}), 5, KeepPin)
	ed.ListKept(&vl, local)
	var got []string
	for _, v := range vl.Versions() {
		got = append(got, v.Hash)
	}
	want := []string{EditedHash(local.Hash, 3), EditedHash(local.Hash, 2), EditedHash(local.Hash, 1)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("versions listed (-want +got):\n%s", diff)
	}
	if h := EditedHash(local.Hash, 2); len(h) != len(local.Hash) || h == local.Hash || EditedHash(local.Hash, 0) != local.Hash {
		t.Errorf("EditedHash: %q from %q", h, local.Hash)
	}
}
