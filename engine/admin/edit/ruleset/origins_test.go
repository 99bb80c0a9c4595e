package ruleset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/matcher"
)

// TestOriginsAfterRollback: after a rollback to version 1 served as
// version 3, a fleet node names a rule of version 1 by its editor's
// (version, author, message) and by the rollback that brought it back
// (version, who), through origins.json as the archive carries it; a
// rule no rollback touched names its editor alone, one the rollback
// made the config's again "config, restored in" the rollback, and one
// of the config "config".
func TestOriginsAfterRollback(t *testing.T) {
	ov := edits.FromEdits([]edit.Edit{
		{Entry: edit.Entry{Op: edit.OpAdd, From: "/fleet", To: "/f1", Status: 301}, By: "ed", At: origin, Version: 1, Restored: 3},
		{Entry: edit.Entry{Op: edit.OpAdd, Host: "a.example.com", From: "/kept", To: "/k", Status: 301}, By: "ann", At: origin, Version: 1},
		{Entry: edit.Entry{Op: edit.OpDelete, From: "/old"}, By: "ed", At: origin, Version: 1, Restored: 3},
		{Entry: edit.Entry{Op: edit.OpConfig, From: "/back"}, Restored: 3},
	})
	made := map[int]edit.Audit{1: {Author: "pub", Message: "first"}, 3: {Author: "bob", Message: "the second broke checkout"}}
	b, err := json.Marshal(OriginsOf(3, ov, made))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, OriginsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := ReadOrigins(dir, "redirectd.toml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule   matcher.Rule
		name   string
		change *admin.RuleChange
	}{
		{matcher.Rule{From: "/fleet"}, "version 1 by ed, restored in version 3 (rollback by bob)",
			&admin.RuleChange{Added: "2026-12-06T04:00:00Z", ChangedBy: "ed", Message: "first", Restored: "version 3 (rollback by bob)"}},
		{matcher.Rule{Host: "a.example.com", From: "/kept"}, "version 1 by ann",
			&admin.RuleChange{Added: "2026-12-06T04:00:00Z", ChangedBy: "ann", Message: "first"}},
		{matcher.Rule{From: "/back"}, "config, restored in version 3 (rollback by bob)", &admin.RuleChange{Restored: "version 3 (rollback by bob)"}},
		{matcher.Rule{From: "/other"}, "config", nil},
	}
	for _, tt := range tests {
		if got := o.Name(&tt.rule); got != tt.name {
			t.Errorf("%s%s: named %q, want %q", tt.rule.Host, tt.rule.From, got, tt.name)
		}
		var ri admin.RuleInfo
		o.Show(&ri, &tt.rule)
		if ri.Source != tt.name {
			t.Errorf("%s%s: /rules source %q, want %q", tt.rule.Host, tt.rule.From, ri.Source, tt.name)
		}
		if diff := cmp.Diff(tt.change, ri.RuleChange); diff != "" {
			t.Errorf("%s%s: /rules change (-want +got):\n%s", tt.rule.Host, tt.rule.From, diff)
		}
	}
}

// origin is when the edits of TestOriginsAfterRollback were made.
var origin = time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
