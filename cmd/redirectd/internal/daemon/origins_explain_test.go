package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/explain"
	"github.com/redirectd/redirectd/engine/admin/edit/ruleset"
	"github.com/redirectd/redirectd/matcher"
)

// TestExplainNamesOrigins: explain on a node fed by an edited node's
// rule-set archive names a rule an edit made by its origin (version and
// author) and one of the config by "config", as /rules does, not by its
// line in the archive.
func TestExplainNamesOrigins(t *testing.T) {
	dir := t.TempDir()
	origins := `{"version":1,"edits":[{"from":"/fleet","version":1,"author":"ed","at":"2026-12-06T04:00:00Z"}]}`
	if err := os.WriteFile(filepath.Join(dir, ruleset.OriginsFile), []byte(origins), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := ruleset.ReadOrigins(dir, "redirectd.toml")
	if err != nil {
		t.Fatal(err)
	}
	set, err := matcher.Compile([]matcher.Rule{
		{Kind: matcher.Exact, From: "/fleet", To: "/f1", Status: 301, File: "redirectd.toml", Line: 7930},
		{Kind: matcher.Exact, From: "/old", To: "/new", Status: 301, File: "redirectd.toml", Line: 7940},
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/fleet": `rule:     version 1 by ed (exact "/fleet")`, "/old": `rule:     config (exact "/old")`} {
		var b strings.Builder
		if err := explain.RequestNamed(&b, set, path, time.Now(), nil, o.Name); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "redirectd.toml:") {
			t.Errorf("explain %s:\n%s\nwant %q and no archive line", path, b.String(), want)
		}
	}
}
