package netlify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/realmaps"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/netlify"
	"github.com/redirectd/redirectd/matcher"
)

// hostlessFixture is in the shape of a documentation site's _redirects
// (kubernetes', cert-manager's): host-less pages, splats and
// placeholders, then the docs host's catch-all at the end.
const hostlessFixture = `# Pages moved
/docs/deprecate/     /docs/reference/deprecation-policy/ 301
/docs/getting-started-guides/*     /docs/setup/ 301
/docs/user-guide/:section/   /docs/concepts/:section/  301
/v1.1/docs/*    /docs/:splat 301
/blog/          https://blog.example.io/ 301!
/docs/home/     /docs/ 301
`

// hostCatchAll is the host-qualified rule after the host-less ones.
const hostCatchAll = "https://docs.example.io/* https://example.io/docs/:splat 302!\n"

// TestImportHostRuleAfterHostless: Netlify applies the first rule in
// file order whatever its host, so a host's catch-all written after
// host-less rules must not take their paths on that host; the import
// writes [rules] order = "file", its self-check finds no answer that
// differs, and the written rules answer so. On the real kubernetes
// _redirects too, when ../shared is present.
func TestImportHostRuleAfterHostless(t *testing.T) {
	run := func(t *testing.T, src string, hostless map[string]string) {
		cands, notes, err := netlify.Load("_redirects", []byte(src+hostCatchAll), importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := importer.Order(cands)
		for _, n := range append(notes, res.Notes...) {
			// A custom 404 page (a 404 rewrite, not translated) before
			// the catch-all is a real difference, which the import lists.
			if n.Kind == importer.Differs && !strings.Contains(n.Msg, "not translated") {
				t.Errorf("the import's check finds an answer that differs: %s", n)
			}
		}
		var out strings.Builder
		if err := importer.WriteFileOrderTOML(&out, "fixture", "", res.Rules); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "[rules]\norder = \"file\"\n") {
			t.Errorf("the config does not say order = \"file\":\n%.300s", out.String())
		}
		cfg, _ := checkImport(t, []byte(out.String()))
		var m matcher.Match
		ask := func(host, path string) string {
			if !cfg.Set.Lookup([]byte(host), []byte(path), nil, &m) {
				return "none"
			}
			return string(m.AppendLocation(nil, nil))
		}
		for path, want := range hostless {
			for _, host := range []string{"docs.example.io", "other.example"} {
				if got := ask(host, path); got != want {
					t.Errorf("%s%s: %s, want %s (the host-less rule before the catch-all)", host, path, got, want)
				}
			}
		}
		if got, want := ask("docs.example.io", "/unmoved/page"), "https://example.io/docs/unmoved/page"; got != want {
			t.Errorf("docs.example.io/unmoved/page: %s, want the catch-all's %s", got, want)
		}
	}
	t.Run("fixture", func(t *testing.T) {
		run(t, hostlessFixture, map[string]string{
			"/docs/deprecate/":                 "/docs/reference/deprecation-policy/",
			"/docs/getting-started-guides/aws": "/docs/setup/",
			"/docs/user-guide/pods/":           "/docs/concepts/pods/",
			"/v1.1/docs/a/b":                   "/docs/a/b",
			"/blog/":                           "https://blog.example.io/",
		})
	})
	t.Run("kubernetes", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(realmaps.Dir(t, "kubernetes"), "_redirects.base"))
		if err != nil {
			t.Fatal(err)
		}
		run(t, string(data), map[string]string{
			"/docs/deprecate/":                 "/docs/reference/using-api/deprecation-policy/",
			"/docs/getting-started-guides/aws": "/docs/setup/",
		})
	})
}
