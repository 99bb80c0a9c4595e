package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestRulesOrder: [rules] order = "file" answers each request with the
// first matching rule of the file, map entries at their [[map]]'s place;
// the default keeps exact, prefix, regex and the host first.
func TestRulesOrder(t *testing.T) {
	rules := `
[[rule]]
match = "prefix"
from = "/docs/"
to = "/handbook/"

[[map]]
file = "r.map"

[[rule]]
match = "prefix"
from = "/"
to = "https://docs.example.io/"
host = "docs.example.io"
status = 302
`
	answers := func(order string) []string {
		cfg, err := loadText(order+rules, "/about /about-us;\n/docs/old /archive;\n")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		var m matcher.Match
		for _, path := range []string{"/docs/old", "/about", "/blog"} {
			if !cfg.Set.Lookup([]byte("docs.example.io"), []byte(path), nil, &m) {
				out = append(out, "none")
				continue
			}
			out = append(out, string(m.AppendLocation(nil, nil)))
		}
		return out
	}
	if diff := cmp.Diff([]string{"/handbook/old", "/about-us", "https://docs.example.io/blog"}, answers("[rules]\norder = \"file\"\n")); diff != "" {
		t.Errorf("order = \"file\" (-want +got):\n%s", diff)
	}
	want := []string{"https://docs.example.io/docs/old", "https://docs.example.io/about", "https://docs.example.io/blog"}
	for _, order := range []string{"", "[rules]\norder = \"precedence\"\n"} {
		if diff := cmp.Diff(want, answers(order)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", order, diff)
		}
	}
}

// TestRulesOrderRefused: another value, and order beside a source, are
// errors naming the file, line and key; a rule set from a source may set
// it.
func TestRulesOrderRefused(t *testing.T) {
	_, err := loadText("[rules]\nwatch = true\norder = \"first\"\n", "")
	if err == nil || !strings.Contains(err.Error(), "c.toml:3: [rules]: order:") {
		t.Errorf("order = \"first\": %v, want an error at c.toml:3 naming order", err)
	}
	_, err = loadText("[rules]\nsource = \"https://objects.example/r.tar.gz\"\ncache_dir = \"/tmp\"\norder = \"file\"\n", "")
	if err == nil || !strings.Contains(err.Error(), "c.toml:4: [rules]: order:") {
		t.Errorf("order beside source: %v, want an error at c.toml:4 naming order", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "redirectd.toml"), []byte("[rules]\norder = \"file\"\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"), 0o644)
	cfg, err := config.LoadRuleSet(dir, "redirectd.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Set.FileOrder() {
		t.Error("a rule set from a source with order = \"file\" is not in file order")
	}
}
