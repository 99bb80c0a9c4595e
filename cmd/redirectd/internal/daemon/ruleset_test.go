package daemon

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/ruleset"
	"github.com/redirectd/redirectd/matcher"
)

// FuzzRuleset: whatever bytes a served rule holds, the archive GET
// /ruleset writes loads back as the same rules, or the archive is refused
// with the rule's place; never as other rules (a DEL byte that JSON
// quoting left raw once made every node refuse every newer archive, and
// bytes that are not UTF-8 became U+FFFD).
func FuzzRuleset(f *testing.F) {
	f.Add("/a\x7fb", "/b", "", uint8(0), uint16(301), false)
	f.Add("/caf\xe9", "/x", "a.example", uint8(0), uint16(302), false)
	f.Add("^/r/(.*)$", "/s/$1?\x7f", "", uint8(2), uint16(308), true)
	f.Add("/p/", "https://x.example/\u2028", "*.w.example", uint8(1), uint16(307), false)
	f.Add("/gone", "", "", uint8(0), uint16(410), false)
	f.Fuzz(func(t *testing.T, from, to, host string, kind uint8, status uint16, shadow bool) {
		// A served rule comes from a config, which config.Load checks,
		// or from an edit, which Entry.Check checks: the edit's path.
		e := edit.Entry{Op: edit.OpAdd, Kind: []string{"exact", "prefix", "regex"}[kind%3], From: from, To: to, Host: host, Status: int(status)}
		if err := e.Check(configSyntax{}); err != nil {
			return // refused at the edit, with its reason
		}
		r := matcher.Rule{Kind: matcher.Kind(kind % 3), From: e.From, To: e.To, Host: e.Host, Status: e.Status, Shadow: shadow,
			When: &matcher.When{Header: []matcher.KeyValue{{Name: "X-A", Value: "1"}}}}
		set, err := matcher.Compile([]matcher.Rule{r})
		if err != nil {
			return // refused at the edit's compile, with its reason
		}
		text, err := ruleset.RulesTOML(set, "h", configSyntax{})
		if err != nil {
			t.Fatalf("an edit that is served cannot be written to the archive: %v", err)
		}
		cfg, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(text)}}, "redirectd.toml")
		if err != nil {
			t.Fatalf("the archive of a served rule does not load: %v\n%s", err, text)
		}
		ignore := cmpopts.IgnoreFields(matcher.Rule{}, "File", "Line")
		if d := cmp.Diff(set.Rules(), cfg.Set.Rules(), ignore, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("the archive loads as other rules (-served +loaded):\n%s\n%s", d, text)
		}
	})
}

// TestRulesetTOMLCarriesEverything: what the old archive left out with a
// comment (conditions, windows, shadow mode, headers) is carried; only a
// no-redirect entry, which has no [[rule]] form, is left out, named.
func TestRulesetTOMLCarriesEverything(t *testing.T) {
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rules := []matcher.Rule{
		{Kind: matcher.Exact, From: "/w", To: "/x", Status: 302, When: &matcher.When{Scheme: "https"}},
		{Kind: matcher.Exact, From: "/t", To: "/y", Status: 301, Active: matcher.Window{From: from}},
		{Kind: matcher.Prefix, From: "/s/", To: "/z/", Status: 308, Shadow: true, Headers: []matcher.Header{{Name: "X-B", Value: "1"}}},
		{Kind: matcher.Exact, From: "/keep", Pass: true},
	}
	set, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	text, err := ruleset.RulesTOML(set, "h", configSyntax{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: []byte(text)}}, "redirectd.toml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	ignore := cmpopts.IgnoreFields(matcher.Rule{}, "File", "Line")
	if d := cmp.Diff(set.Rules()[:3], cfg.Set.Rules(), ignore, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("(-served +loaded):\n%s\n%s", d, text)
	}
	if !strings.Contains(text, "left out: the no-redirect entry exact /keep") {
		t.Errorf("the no-redirect entry is not named:\n%s", text)
	}
}

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
	if _, err := ruleset.Write(archive, set, "h1", nil, configSyntax{}); err != nil {
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
