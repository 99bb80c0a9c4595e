package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportRefusesOverwrite: an import whose output exists is refused
// (exit 2, naming -force), as it would replace a config edited by hand;
// with -force it is replaced.
func TestImportRefusesOverwrite(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bulk.csv":           "/a,/b,301\n",
		"_redirects":         "/a /b 301\n",
		"nginx.conf":         "server { location = /a { return 301 /b; } }\n",
		"out.toml":           "# edited by hand\n",
		"out/redirectd.toml": "# edited by hand\n",
	})
	out, outDir := filepath.Join(dir, "out.toml"), filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"import", "csv", "-o", out, filepath.Join(dir, "bulk.csv")},
		{"import", "netlify", "-o", out, filepath.Join(dir, "_redirects")},
		{"import", "nginx", "-o", outDir, filepath.Join(dir, "nginx.conf")},
	} {
		code, _, stderr := runCmd(args...)
		if code != 2 || !strings.Contains(stderr, "exists: give -force") {
			t.Errorf("%s: exit %d, want 2 and -force named:\n%s", strings.Join(args[:2], " "), code, stderr)
		}
		forced := append(append(append([]string{}, args[:2]...), "-force"), args[2:]...)
		if code, _, stderr := runCmd(forced...); code != 0 {
			t.Errorf("%s -force: exit %d:\n%s", strings.Join(args[:2], " "), code, stderr)
		}
	}
	for _, f := range []string{out, filepath.Join(outDir, "redirectd.toml")} {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), "edited by hand") {
			t.Errorf("%s was not replaced with -force", f)
		}
	}
}
