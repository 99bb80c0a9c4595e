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
// names the cycle with the include's file:line (it once said
// only "includes nest deeper than 16").
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
	if n := strings.Count(string(toml), "path = '/old'"); n != 30 {
		t.Errorf("%d locations = /old, want one per server (30):\n%s", n, toml)
	}
	if !strings.Contains(string(toml), "path = '/e'") {
		t.Errorf("the rule at the end of the chain is missing:\n%s", toml)
	}
}

// TestImportNginxIncludeSecrets imports configs that include files which
// are not nginx configs: one outside the config's folder (as `include
// /etc/shadow;` would), one reached through a link in conf.d, one inside
// the folder. No error quotes a byte of them; the first two are not read
// at all unless -include-dir names their folder.
func TestImportNginxIncludeSecrets(t *testing.T) {
	secret := "root:$y$j9T$SECRETHASH:19700:0:99999:7:::"
	etc := t.TempDir()
	if err := os.WriteFile(filepath.Join(etc, "shadow"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"outside.conf":    "http {\n    include " + filepath.Join(etc, "shadow") + ";\n}\n",
		"linked.conf":     "http {\n    include conf.d/*.conf;\n}\n",
		"inside.conf":     "http {\n    include data/secret.txt;\n}\n",
		"data/secret.txt": secret + "\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "conf.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(etc, "shadow"), filepath.Join(dir, "conf.d", "x.conf")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file  string
		flags []string
		want  string
	}{
		{"outside.conf", nil, "outside.conf:2: include \"" + filepath.Join(etc, "shadow") + "\" names " + filepath.Join(etc, "shadow") + ", outside the folders an import reads"},
		{"linked.conf", nil, "linked.conf:2: include \"conf.d/*.conf\" names " + filepath.Join(dir, "conf.d", "x.conf") + ", outside"},
		{"inside.conf", nil, filepath.Join(dir, "data", "secret.txt") + ":1: not nginx configuration syntax"},
		{"outside.conf", []string{"-include-dir", etc}, filepath.Join(etc, "shadow") + ":1: not nginx configuration syntax: directive \"(not shown)\""},
	}
	for _, tc := range tests {
		t.Run(tc.file+strings.Join(tc.flags, ""), func(t *testing.T) {
			args := append([]string{"import", "nginx", "-o", t.TempDir()}, tc.flags...)
			code, stdout, stderr := runCmd(append(args, filepath.Join(dir, tc.file))...)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want 1 and %q:\n%s", code, tc.want, stderr)
			}
			for _, part := range []string{"SECRETHASH", "root:", "19700"} {
				if strings.Contains(stdout+stderr, part) {
					t.Errorf("the output quotes the included file (%q):\n%s%s", part, stdout, stderr)
				}
			}
		})
	}
}
