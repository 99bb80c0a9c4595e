package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckLocations: check counts the [[location]] tables of a config
// that has no flat rules, rather than saying "0 rules" alone, and names
// file, line and key of a wrong step.
func TestCheckLocations(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(good, []byte("[[location]]\npath = \"/docs/\"\nsteps = 'rewrite ^(.*)/usage$ $1/overview redirect;'\n"+
		"[[location.location]]\nmatch = \"exact\"\npath = \"/docs/x\"\nsteps = 'return 410;'\n"), 0o644)
	os.WriteFile(bad, []byte("[[location]]\npath = \"/docs/\"\nsteps = '''\nreturn 410;\nrewrite ^ /x blast;\n'''\n"), 0o644)
	out, err := exec.Command(bin, "check", "-config", good).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "0 rules (0 exact, 0 prefix, 0 regex), 2 locations, 0 warnings") {
		t.Errorf("check good.toml: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "check", "-config", bad).CombinedOutput()
	want := bad + `:5: [[location]] /docs/: steps: rewrite: invalid flag "blast"; flags are last, break, redirect and permanent`
	if err == nil || !strings.Contains(string(out), want) {
		t.Errorf("check bad.toml: %v\n%s\nwant %s", err, out, want)
	}
}
