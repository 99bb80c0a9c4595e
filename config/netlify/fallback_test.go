package netlify_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/redirectd/redirectd/benchmarks/realmaps"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/importer/importertest"
	"github.com/redirectd/redirectd/config/lint"
	"github.com/redirectd/redirectd/config/netlify"
	"github.com/redirectd/redirectd/matcher"
)

// checkImport loads an imported config and lints it as `redirectd check`
// does, failing on any error, and returns the findings and the config.
func checkImport(t *testing.T, cfgText []byte) (*config.Config, []lint.Finding) {
	t.Helper()
	cfg, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: cfgText}}, "redirectd.toml")
	if err != nil {
		t.Fatalf("the written config does not load: %v", err)
	}
	findings := lint.Check(cfg.Set.Rules(), cfg.Set)
	for _, f := range findings {
		if f.Severity == lint.Error {
			t.Errorf("check: error: %s", f.Message)
		}
	}
	return cfg, findings
}

// loops returns the first rule of each loop finding, with its severity.
func loops(findings []lint.Finding) []string {
	var out []string
	for _, f := range findings {
		if f.Kind == "loop" {
			out = append(out, string(f.Severity)+" "+f.Rules[0].From)
		}
	}
	return out
}

// TestImportFallback imports testdata/import/fallback.txt: rules without '!' are
// written as fallbacks, forced ones plain, and the loops between pages
// that exist (which Netlify never serves) are warnings, so that check
// passes; splats after a non-slash character are translated.
func TestImportFallback(t *testing.T) {
	cfgText, _ := importertest.Import(t, "netlify", netlify.Load, importertest.Extract(t, "testdata/import/fallback.txt"), "_redirects", importer.Options{})
	cfg, findings := checkImport(t, cfgText)
	want := []string{
		"warning /guide/overview", "warning /whatisit", "warning /guide/overview/what-is-it",
		"warning /setup/old-nodes", "warning /tasks/nodes/join",
	}
	if d := cmp.Diff(want, loops(findings)); d != "" {
		t.Errorf("loops (-want +got):\n%s", d)
	}
	fallback := map[string]bool{}
	for _, r := range cfg.Set.Rules() {
		fallback[r.From] = r.Fallback
	}
	for from, want := range map[string]bool{"/faq": true, "/user-guide/": true, "/reference/cli/cli_": true,
		"/reference/cli/commands": false, "/legacy/": false, "/reference/generated/cli/cli_": false} {
		if got, ok := fallback[from]; !ok || got != want {
			t.Errorf("%s: fallback %v (written: %v), want %v", from, got, ok, want)
		}
	}
	var m matcher.Match
	for path, loc := range map[string]string{
		"/reference/cli/cli_apply":     "/reference/generated/cli#apply",
		"/reference/cli/cli_":          "/reference/generated/cli#",
		"/v1.2/install/":               "/versions/v1/2/install/",
		"/reference/cli/cli_set/image": "/reference/generated/cli#set/image",
	} {
		if !cfg.Set.Lookup(nil, []byte(path), nil, &m) {
			t.Errorf("%s: no rule", path)
			continue
		}
		if got := string(m.AppendLocation(nil, nil)); got != loc {
			t.Errorf("%s: Location %q, want %q", path, got, loc)
		}
	}
	if cfg.Set.Lookup(nil, []byte("/reference/cli/other"), nil, &m) {
		t.Errorf("/reference/cli/other matched %s", m.Rule().Source())
	}
}

// TestImportKubernetes imports a large documentation site's real
// _redirects (515 rules; SOURCE beside it) as `redirectd import netlify`
// does and checks it as `redirectd check` does: it must pass, its loops
// between pages that exist (Netlify never serves them) being warnings,
// and every rule Netlify applies must be written. What is left out are
// its custom 404 pages and the twins Netlify never reaches.
func TestImportKubernetes(t *testing.T) {
	dir := realmaps.Dir(t, "kubernetes")
	data, err := os.ReadFile(filepath.Join(dir, "_redirects.base"))
	if err != nil {
		t.Fatal(err)
	}
	cands, notes, err := netlify.Load("_redirects.base", data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := importer.Order(cands)
	notes = append(notes, res.Notes...)
	var out strings.Builder
	if err := importer.WriteFileOrderTOML(&out, "kubernetes", "", res.Rules); err != nil {
		t.Fatal(err)
	}
	_, findings := checkImport(t, []byte(out.String()))
	if n := len(loops(findings)); n != 6 {
		t.Errorf("%d loops, want the 6 warnings: %v", n, loops(findings))
	}
	if len(res.Rules) != 505 {
		t.Errorf("%d rules written, want 505 of 515", len(res.Rules))
	}
	var left []string
	for _, n := range notes {
		if n.Kind == importer.LeftOut {
			left = append(left, n.String())
		}
	}
	want := []string{":48:", ":49:", ":50:", ":51:", ":52:", ":53:", ":409:", ":412:", ":415:", ":417:"}
	for i, n := range left {
		if i >= len(want) || !strings.Contains(n, want[i]) {
			t.Errorf("left out: %s", n)
		}
		if i < 6 && !strings.Contains(n, "a custom 404 page") || i >= 6 && !strings.Contains(n, "never applies") {
			t.Errorf("left out for another reason: %s", n)
		}
	}
	if len(left) != len(want) {
		t.Errorf("%d left out, want %d:\n%s", len(left), len(want), strings.Join(left, "\n"))
	}
	if !slices.ContainsFunc(notes, func(n importer.Note) bool { return strings.Contains(n.Msg, "written with fallback = true") }) {
		t.Error("no note says the rules without '!' are fallbacks")
	}
}
