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

// TestHelpAndStrayArguments: -h prints the usage and exits 0 for every
// subcommand; a stray argument to check or serve is refused (exit 2)
// rather than ignored.
func TestHelpAndStrayArguments(t *testing.T) {
	for _, args := range [][]string{{"serve", "-h"}, {"check", "-h"}, {"explain", "-h"}, {"test", "-h"},
		{"import", "csv", "-h"}, {"import", "nginx", "-h"}, {"import", "netlify", "-h"}, {"import", "vercel", "-h"}} {
		if code, _, stderr := runCmd(args...); code != 0 || !strings.Contains(stderr, "Usage of") {
			t.Errorf("%v: exit %d, want 0 and the usage:\n%s", args, code, stderr)
		}
	}
	for _, args := range [][]string{{"check", "redirectd.toml"}, {"serve", "redirectd.toml"}} {
		if code, _, stderr := runCmd(args...); code != 2 || !strings.Contains(stderr, `unexpected argument "redirectd.toml"`) {
			t.Errorf("%v: exit %d, want 2 naming the argument:\n%s", args, code, stderr)
		}
	}
}
