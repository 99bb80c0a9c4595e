package edits

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestRecoverRollbackToConfig: a rollback to the config's own rules
// (version 0) that committed but has no audit record (the process ended
// between the two) is recorded at start as the rollback it was, not as
// a promote: RollbackOf 0 alone cannot tell the two apart.
func TestRecoverRollbackToConfig(t *testing.T) {
	dir := t.TempDir()
	auditPath := filepath.Join(dir, "audit.log")
	st, err := OpenStore(filepath.Join(dir, "edits"), 5)
	if err != nil {
		t.Fatal(err)
	}
	a, _, _, err := OpenAudit(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	promote := &edit.Version{Number: 1, Author: "ed", Message: "add", Counts: &edit.Counts{Added: 1},
		Edits: []edit.Edit{{Entry: edit.Entry{Op: edit.OpAdd, From: "/a", To: "/b", Status: 301}, By: "ed", Version: 1}}}
	back := &edit.Version{Number: 2, Base: 1, Author: "pub", Message: "undo", Counts: &edit.Counts{Removed: 1}, Rollback: true}
	for _, v := range []*edit.Version{promote, back} {
		if err := st.Write(v); err != nil {
			t.Fatal(err)
		}
		if err := st.Commit(v.Number); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Append(Record("promote", edit.Audit{Author: "ed", Message: "add"}, promote, "")); err != nil {
		t.Fatal(err)
	}

	if _, err := Open(Options{Dir: filepath.Join(dir, "edits"), AuditLog: auditPath, Keep: 5}, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	_, recs, bad, err := OpenAudit(auditPath)
	if err != nil || bad > 0 {
		t.Fatalf("audit log: %v, %d bad lines", err, bad)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Action)
	}
	if diff := cmp.Diff([]string{"promote", "rollback"}, got); diff != "" {
		t.Errorf("the audit log after start (-want +got):\n%s", diff)
	}
}
