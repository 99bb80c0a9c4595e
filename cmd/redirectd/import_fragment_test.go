package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportFragmentSource: a Netlify or Vercel source holding '#' (a
// fragment, which browsers never send) can never apply: the import's
// report says so for its line, and `redirectd check` of what it wrote
// warns about the rule, at its line, without failing.
func TestImportFragmentSource(t *testing.T) {
	for _, tc := range []struct {
		kind, name, src, line string
	}{
		{"netlify", "_redirects", "/ok /fine 301\n/a#b /c 301\n", "_redirects:2"},
		{"vercel", "vercel.json", "{\"redirects\": [\n{\"source\": \"/ok\", \"destination\": \"/fine\"},\n{\"source\": \"/x/:p#y\", \"destination\": \"/c\"}\n]}\n", "vercel.json:3"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			dir := t.TempDir()
			src, out := filepath.Join(dir, tc.name), filepath.Join(dir, "redirectd.toml")
			os.WriteFile(src, []byte(tc.src), 0o644)
			code, _, report := runCmd("import", tc.kind, "-o", out, src)
			if code != 0 {
				t.Fatalf("import: exit %d\n%s", code, report)
			}
			if !strings.Contains(report, src[:len(src)-len(tc.name)]+tc.line+": ") || !strings.Contains(report, "its source holds '#'") {
				t.Errorf("the report does not warn of the '#' at %s:\n%s", tc.line, report)
			}
			code, stdout, errs := runCmd("check", "-config", out)
			if code != 0 || !strings.Contains(errs, "warning: regex rule") || !strings.Contains(errs, "what follows '#' is a fragment") || !strings.Contains(stdout, "1 warning") {
				t.Errorf("check: exit %d\nstdout %s\nstderr %s", code, stdout, errs)
			}
		})
	}
}
