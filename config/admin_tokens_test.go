package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config"
)

// TestAdminTokens checks [[admin.tokens]] and the edit keys of [admin]:
// what a good table loads to, and that each mistake is an error naming
// line and key.
func TestAdminTokens(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "redirectd.toml")
	os.MkdirAll(filepath.Join(dir, "tokens"), 0o755)
	os.WriteFile(filepath.Join(dir, "tokens", "alice"), []byte("alice-token\n"), 0o600)
	good := "[admin]\nedits_dir = \"edits\"\n\n[[admin.tokens]]\nname = \"alice\"\nrole = \"editor\"\ntoken_file = \"tokens/alice\"\nhosts = [\"*.Brand-A.com.\"]\n\n" +
		"[[admin.tokens]]\nname = \"bob\"\nrole = \"viewer\"\ntoken = \"bob-token\"\n"
	os.WriteFile(file, []byte(good), 0o644)
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Admin{Listen: config.DefaultAdminListen, EditsDir: filepath.Join(dir, "edits"), AuditLog: filepath.Join(dir, "edits", "audit.jsonl"),
		MaxUploadBytes: config.DefaultMaxUploadBytes, MaxDrafts: config.DefaultMaxDrafts, MaxDraftEntries: config.DefaultMaxDraftEntries, Tokens: []config.AdminToken{
			{Name: "alice", Role: "editor", Token: "alice-token", TokenFile: filepath.Join(dir, "tokens", "alice"), Hosts: []string{"*.brand-a.com"}},
			{Name: "bob", Role: "viewer", Token: "bob-token"},
		}}
	if diff := cmp.Diff(want, cfg.Admin); diff != "" {
		t.Errorf("[admin] (-want +got):\n%s", diff)
	}
	tok := func(body string) string { return "[[admin.tokens]]\n" + body }
	for _, tt := range []struct{ name, config, want string }{
		{"no name", tok("role = \"viewer\"\ntoken = \"x\"\n"), "redirectd.toml:1: [[admin.tokens]] #1: name: is required"},
		{"same name", tok("name = \"a\"\nrole = \"viewer\"\ntoken = \"x\"\n") + tok("name = \"a\"\nrole = \"viewer\"\ntoken = \"y\"\n"), "redirectd.toml:6: [[admin.tokens]] #2: name: \"a\" is the name of an earlier token"},
		{"bad role", tok("name = \"a\"\nrole = \"root\"\ntoken = \"x\"\n"), "redirectd.toml:3: [[admin.tokens]] #1: role: \"root\" is not a role"},
		{"no token", tok("name = \"a\"\nrole = \"viewer\"\n"), "[[admin.tokens]] #1: token_file: is required"},
		{"both", tok("name = \"a\"\nrole = \"viewer\"\ntoken = \"x\"\ntoken_file = \"tokens/alice\"\n"), "redirectd.toml:5: [[admin.tokens]] #1: token_file: set token or token_file, not both"},
		{"missing file", tok("name = \"a\"\nrole = \"viewer\"\ntoken_file = \"nope\"\n"), "redirectd.toml:4: [[admin.tokens]] #1: token_file: cannot read"},
		{"bad host", tok("name = \"a\"\nrole = \"viewer\"\ntoken = \"x\"\nhosts = [\"a.com/x\"]\n"), "redirectd.toml:5: [[admin.tokens]] #1: hosts: \"a.com/x\" is not a host name"},
		{"empty hosts", tok("name = \"a\"\nrole = \"viewer\"\ntoken = \"x\"\nhosts = []\n"), "hosts: the list is empty"},
		{"unknown key", tok("name = \"a\"\nrole = \"viewer\"\ntoken = \"x\"\nhost = \"a.com\"\n"), "host"},
		{"negative upload", "[admin]\nmax_upload_bytes = -1\n", "redirectd.toml:2: [admin]: max_upload_bytes: -1 is negative"},
		{"edits with source", "[admin]\nedits_dir = \"e\"\n[rules]\nsource = \"https://x.example/r.tar.gz\"\ncache_dir = \"c\"\n", "redirectd.toml:2: [admin]: edits_dir: this node's rules come from [rules] source"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "redirectd.toml")
			os.WriteFile(f, []byte(tt.config), 0o644)
			_, err := config.Load(f)
			msg := ""
			if err != nil {
				msg = strings.ReplaceAll(err.Error(), f, "redirectd.toml")
			}
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q\nwant one holding %q", msg, tt.want)
			}
		})
	}
}
