package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMapNoRedirectAndSkipped checks what explain says of a miss decided by
// a no-redirect map entry (value ""), and that check lists the entries a
// [[map]] with invalid = "skip" left out as warnings and passes.
func TestMapNoRedirectAndSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"redirectd.toml": "[[map]]\nfile = \"r.map\"\ninvalid = \"skip\"\n",
		"r.map":          "\"~^/doc/.*$\" \"/docs\";\n\"/doc/keep\" \"\";\n~^/(bad /x;\n/a /b /c;\n",
	})
	conf := filepath.Join(dir, "redirectd.toml")
	tests := []struct {
		args []string
		code int
		out  []string // each in stdout or stderr
	}{
		{[]string{"explain", "-config", conf, "/doc/keep"}, 0,
			[]string{`no redirect: ` + filepath.Join(dir, "r.map") + `:2 (exact "/doc/keep") is a no-redirect entry (its value is "")`}},
		{[]string{"explain", "-config", conf, "/doc/other"}, 0, []string{"location: /docs"}},
		{[]string{"explain", "-config", conf, "/nothing"}, 0, []string{"no rule matches"}},
		{[]string{"check", "-config", conf}, 0, []string{
			filepath.Join(dir, "r.map") + `:3: warning: map entry left out (invalid = "skip"): from: cannot compile regex`,
			filepath.Join(dir, "r.map") + ":4: warning: map entry left out (invalid = \"skip\"): an entry is `from to;`, this one has 3 words",
			"2 warnings"}},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCmd(tt.args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", tt.args, code, tt.code, stdout, stderr)
		}
		for _, w := range tt.out {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("%v: output lacks %q:\n%s%s", tt.args, w, stdout, stderr)
			}
		}
	}
}
