package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainHTTPSRedirect: under https_redirect, explain of a plain URL
// answers what the plain port answers (the 301 to https, before any rule),
// then the rule that answers over https; an https URL gets the rule alone.
func TestExplainHTTPSRedirect(t *testing.T) {
	file := filepath.Join(t.TempDir(), "redirectd.toml")
	cfg := "[server]\nhttps_redirect = true\n[admin]\nlisten = \"off\"\n[[rule]]\nfrom = \"/a\"\nto = \"https://new.example/b\"\n"
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url, first string
		redirect   bool
	}{
		{"http://old.example:8080/a?x=1", "https_redirect: status 301\nlocation: https://old.example/a?x=1\n", true},
		// The server keeps an IPv6 literal's brackets when it drops the port.
		{"http://[2001:db8::1]:8080/a", "https_redirect: status 301\nlocation: https://[2001:db8::1]/a\n", true},
		{"https://old.example/a", "rule:", false},
	} {
		code, out, stderr := runCmd("explain", "-config", file, tc.url)
		if code != 0 || !strings.HasPrefix(out, tc.first) || !strings.Contains(out, "location: https://new.example/b") ||
			strings.Contains(out, "https_redirect") != tc.redirect {
			t.Errorf("explain %s: exit %d\n%s%s", tc.url, code, out, stderr)
		}
	}
}
