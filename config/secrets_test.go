package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
)

// TestTokenFile checks that [admin] token_file is read at each load,
// relative to the config's folder and without the newline around it, and
// that a missing, empty or doubled secret is an error naming the key.
func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "redirectd.toml")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("redirectd.toml", "[admin]\nlisten = \"0.0.0.0:9180\"\ntoken_file = \"token\"\n")
	write("token", "first-token\n")
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	write("token", "second-token")
	again, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first-token", filepath.Join(dir, "token"), "second-token"},
		[]string{cfg.Admin.Token, cfg.Admin.TokenFile, again.Admin.Token}); diff != "" {
		t.Errorf("token, file, token after the file changed (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ name, config, token, want string }{
		{"missing", "[admin]\ntoken_file = \"nope\"\n", "", "redirectd.toml:2: [admin]: token_file: cannot read " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{"empty", "[admin]\ntoken_file = \"token\"\n", " \n", "redirectd.toml:2: [admin]: token_file: " + filepath.Join(dir, "token") + " is empty"},
		{"a folder", "[admin]\ntoken_file = \".\"\n", "x", "redirectd.toml:2: [admin]: token_file: cannot read " + dir + ": "},
		{"both", "[admin]\ntoken = \"a\"\ntoken_file = \"token\"\n", "x", "redirectd.toml:3: [admin]: token_file: set token or token_file, not both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			write("redirectd.toml", tt.config)
			write("token", tt.token)
			_, err := config.Load(file)
			msg := ""
			if err != nil {
				msg = strings.ReplaceAll(err.Error(), dir+string(filepath.Separator)+"redirectd.toml", "redirectd.toml")
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q\nwant one holding %q", msg, tt.want)
			}
			if strings.Contains(msg, "second-token") {
				t.Errorf("the error shows the secret: %q", msg)
			}
		})
	}
}

// TestSourceHeaderFileAtLoad checks that [rules] source_header_file is
// read at load too: a missing file or one that is not a header is an
// error naming the key, without the secret.
func TestSourceHeaderFileAtLoad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "redirectd.toml")
	base := "[rules]\nsource = \"https://rules.example/set.tar.gz\"\ncache_dir = \"cache\"\nsource_header_file = \"header\"\n"
	os.WriteFile(file, []byte(base), 0o644)
	if _, err := config.Load(file); err == nil || !strings.Contains(err.Error(), "redirectd.toml:4: [rules]: source_header_file: cannot read "+filepath.Join(dir, "header")) {
		t.Errorf("missing file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "header"), []byte("Bearer s3cret\n"), 0o600)
	if _, err := config.Load(file); err == nil || !strings.Contains(err.Error(), "source_header_file: ") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("not a header: %v, want an error naming the key without the secret", err)
	}
	os.WriteFile(filepath.Join(dir, "header"), []byte("Authorization: Bearer s3cret\n"), 0o600)
	if _, err := config.Load(file); err != nil {
		t.Errorf("a header: %v", err)
	}
}
