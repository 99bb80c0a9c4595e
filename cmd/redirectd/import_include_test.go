package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportNginxIncludeCycle runs redirectd import nginx on a conf.d
// folder whose file includes conf.d/*.conf, itself among them: the error
// names the cycle with the include's file:line (issue 12 item 13; it was
// "includes nest deeper than 16").
func TestImportNginxIncludeCycle(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"nginx.conf":    "http {\n    include conf.d/*.conf;\n}\n",
		"conf.d/a.conf": "server {\n    server_name a.test;\n    include conf.d/*.conf;\n    return 301 https://a.test$request_uri;\n}\n",
		"conf.d/b.conf": "server {\n    server_name b.test;\n    return 301 https://b.test/;\n}\n",
	})
	code, _, stderr := runCmd("import", "nginx", "-o", filepath.Join(dir, "out"), filepath.Join(dir, "nginx.conf"))
	a := filepath.Join(dir, "conf.d", "a.conf")
	want := fmt.Sprintf("%s:3: include \"conf.d/*.conf\" makes a cycle: %s:3 -> %s", a, a, a)
	if code != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("import: exit %d, want 1 and the cycle %q:\n%s", code, want, stderr)
	}
}

// TestImportNginxIncludedOften imports a snippet included by 30 server
// blocks and a chain of 20 includes: each file is read once, and a chain
// deeper than the old limit of 16 is no error when it has no cycle.
func TestImportNginxIncludedOften(t *testing.T) {
	dir := t.TempDir()
	var conf strings.Builder
	conf.WriteString("http {\n")
	for i := range 30 {
		fmt.Fprintf(&conf, "    server { server_name s%d.test; include snippets/old.conf; }\n", i)
	}
	conf.WriteString("    include chain/0.conf;\n}\n")
	files := map[string]string{
		"nginx.conf":        conf.String(),
		"snippets/old.conf": "location = /old { return 301 /new; }\n",
	}
	for i := range 20 {
		files[fmt.Sprintf("chain/%d.conf", i)] = fmt.Sprintf("include chain/%d.conf;\n", i+1)
	}
	files["chain/20.conf"] = "server { server_name end.test; location = /e { return 302 /f; } }\n"
	writeFiles(t, dir, files)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCmd("import", "nginx", "-o", out, filepath.Join(dir, "nginx.conf"))
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	toml, err := os.ReadFile(filepath.Join(out, "redirectd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(toml), "from = '/old'"); n != 30 {
		t.Errorf("%d rules for /old, want one per server (30):\n%s", n, toml)
	}
	if !strings.Contains(string(toml), "from = '/e'") {
		t.Errorf("the rule at the end of the chain is missing:\n%s", toml)
	}
}
