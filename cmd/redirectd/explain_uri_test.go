package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainNginxURI: with uri = "nginx", explain matches the rules on
// nginx's $uri and says 400 for a path nginx refuses.
func TestExplainNginxURI(t *testing.T) {
	file := filepath.Join(t.TempDir(), "redirectd.toml")
	cfg := "[admin]\nlisten = \"off\"\n[rules.defaults]\nuri = \"nginx\"\n[[rule]]\nmatch = \"prefix\"\nfrom = \"/js/\"\nto = \"/assets/js/\"\n"
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ url, want string }{
		{"http://example.com/x/..//js%2Fa", "location: /assets/js/a"},
		{"http://example.com/a/../../js/a", "the answer is 400"},
	} {
		code, out, stderr := runCmd("explain", "-config", file, tc.url)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("explain %s: exit %d, want %q in\n%s%s", tc.url, code, tc.want, out, stderr)
		}
	}
}
