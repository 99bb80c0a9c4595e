package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config/importer/importertest"
)

const fallbackConfig = `[[rule]]
from = "/a"
to = "/b"
fallback = true

[[rule]]
from = "/b"
to = "/a"
fallback = true
fallback_status = [404, 410]

[[rule]]
from = "/plain"
to = "/b"
`

// TestExplainFallback checks that explain says a rule is a fallback and
// which upstream statuses let it answer.
func TestExplainFallback(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, []byte(fallbackConfig), 0o644)
	for _, tc := range []struct {
		url, want string
	}{
		{"/a", "fallback: the request is forwarded to the upstream first; this answer is sent only if it answers 404, else"},
		{"/b", "only if it answers 404 or 410, else"},
	} {
		code, out, errs := runCmd("explain", "-config", file, tc.url)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("explain %s: exit %d\n%s%s\nlacks %q", tc.url, code, out, errs, tc.want)
		}
	}
	if _, out, _ := runCmd("explain", "-config", file, "/plain"); strings.Contains(out, "fallback") {
		t.Errorf("explain of a plain rule mentions a fallback:\n%s", out)
	}
}

// TestCheckFallbackLoop checks that check passes, with a warning, a loop
// made only of fallback rules, and still fails one with a plain rule.
func TestCheckFallbackLoop(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, []byte(fallbackConfig), 0o644)
	code, out, errs := runCmd("check", "-config", file)
	// /plain leads into the loop of fallbacks: a warning too.
	if code != 0 || !strings.Contains(errs, ":1: warning: redirect loop of fallback rules: /a") || !strings.Contains(errs, ":12: warning: redirect loop of fallback rules: /plain") {
		t.Errorf("check of a fallback loop: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	// /b is plain now: the loop /a -> /b -> /a is an error.
	os.WriteFile(file, []byte(strings.Replace(fallbackConfig, "fallback = true\nfallback_status = [404, 410]\n", "", 1)), 0o644)
	if code, out, errs := runCmd("check", "-config", file); code == 0 {
		t.Errorf("check of a loop with a plain rule passed:\nstdout %s\nstderr %s", out, errs)
	}
}

// TestImportNetlifyFallbackServes imports config/netlify/testdata/import/fallback.txt
// and serves it with the built binary in front of a real upstream that
// has some of the pages, as Netlify has the site's files: where the page
// exists the upstream's page is served (so the loops between existing
// pages are never served), where it does not the redirect is, and a
// forced rule redirects whatever the upstream has.
func TestImportNetlifyFallbackServes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	pages := map[string]bool{"/guide/overview/": true, "/guide/overview/what-is-it/": true, "/tasks/nodes/join/": true,
		"/reference/cli/commands/": true}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !pages[r.URL.Path] {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "the page "+r.URL.Path)
	}))
	defer up.Close()
	const h = "docs.example"
	cases := plain([]hostedCase{
		{h, "/guide/overview/", 200, ""},            // a loop's page: served
		{h, "/guide/overview/what-is-it/", 200, ""}, // and the other
		{h, "/whatisit/", 301, "/guide/overview/what-is-it/"},
		{h, "/tasks/nodes/join/", 200, ""}, // redirected onto itself: served
		{h, "/setup/old-nodes/", 301, "/tasks/nodes/join/"},
		{h, "/reference/cli/commands/", 301, "/reference/generated/cli/"}, // forced
		{h, "/reference/cli/cli_apply", 301, "/reference/generated/cli#apply"},
		{h, "/v1.4/install", 302, "/versions/v1/4/install"},
		{h, "/user-guide/pods", 301, "/tasks/pods"},
		{h, "/unknown", 404, ""}, // the upstream's 404
	})
	report := serveImportWith(t, "netlify", filepath.Join(importertest.Extract(t, "../../config/netlify/testdata/import/fallback.txt"), "_redirects"),
		serveOpts{server: fmt.Sprintf("\n[upstream]\nservers = [%q]\n", up.Listener.Addr().String())}, cases)
	if !strings.Contains(report, "written with fallback = true") {
		t.Errorf("report:\n%s", report)
	}
}
