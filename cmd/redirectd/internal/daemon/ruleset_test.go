package daemon

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestRulesetKeepsURI: the /ruleset archive of rules on nginx's $uri
// says so, and a node that loads it compares $uri too.
func TestRulesetKeepsURI(t *testing.T) {
	b := matcher.NewBuilder(matcher.DefaultLimits)
	u := matcher.URI{Nginx: true, KeepSlashes: true}
	b.SetURI(u)
	if err := b.Add(&matcher.Rule{Kind: matcher.Prefix, From: "/p/", To: "/q/", Status: 301, File: "r.toml", Line: 1}); err != nil {
		t.Fatal(err)
	}
	set, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	archive := filepath.Join(dir, "ruleset.tar.gz")
	if err := writeRuleset(archive, set, "h1"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	if _, err := tr.Next(); err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "redirectd.toml"), text, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadRuleSet(dir, "redirectd.toml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if cfg.Set.URI() != u {
		t.Errorf("the archive's rules compare %+v, want %+v:\n%s", cfg.Set.URI(), u, text)
	}
}
