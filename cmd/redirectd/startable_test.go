package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckMeansServe: for configs that load but that serve cannot start
// with, check fails too, with the same message; a config serve starts
// with passes check.
func TestCheckMeansServe(t *testing.T) {
	for _, tc := range []struct {
		name, cfg, want string
	}{
		{"admin on every interface without a token", "[admin]\nlisten = \":19189\"\n", "[admin]"},
		{"port out of range", "[server]\nlisten = \"127.0.0.1:99999\"\n[admin]\nlisten = \"off\"\n", "[server] listen"},
		{"tls port out of range", "[admin]\nlisten = \"off\"\n[tls]\nlisten = \"127.0.0.1:70000\"\n[[tls.certificate]]\ncert = \"c.pem\"\nkey = \"k.pem\"\n", "[tls] listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "redirectd.toml")
			if err := os.WriteFile(file, []byte(tc.cfg+"\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, checkErr := runCmd("check", "-config", file)
			scode, _, serveErr := runCmd("serve", "-config", file)
			if code != 1 || scode != 1 || !strings.Contains(checkErr, tc.want) || !strings.Contains(serveErr, tc.want) {
				t.Errorf("check: exit %d %q; serve: exit %d %q; want both 1, naming %s", code, checkErr, scode, serveErr, tc.want)
			}
		})
	}
}
