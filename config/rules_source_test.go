package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
)

func TestRulesSource(t *testing.T) {
	file := writeFiles(t, map[string]string{"redirectd.toml": `
[rules]
source = "https://objects.example/redirectd/site.tar.gz"
poll = "5s"
source_header = "Authorization: Bearer abc"
cache_dir = "cache"
`})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := config.RulesSource{Source: "https://objects.example/redirectd/site.tar.gz", Poll: config.Duration(5 * time.Second),
		SourceHeader: "Authorization: Bearer abc", CacheDir: filepath.Join(filepath.Dir(file), "cache"), KeepVersions: 10}
	if diff := cmp.Diff(want, cfg.Reload.RulesSource); diff != "" {
		t.Errorf("[rules] (-want +got):\n%s", diff)
	}
	if cfg.Set.Len() != 0 {
		t.Errorf("%d rules in a config whose rules come from a source", cfg.Set.Len())
	}
}

func TestRulesSourceErrors(t *testing.T) {
	const base = "[rules]\nsource = \"https://s.example/r.tar.gz\"\ncache_dir = \"/var/cache/redirectd\"\n"
	tests := []struct {
		name, toml, want string
	}{
		{"not a url", "[rules]\nsource = \"objects/site.tar.gz\"\ncache_dir = \"/c\"\n", `:2: [rules]: source: "objects/site.tar.gz" is not an http:// or https:// URL`},
		{"ftp", "[rules]\nsource = \"ftp://h/site.tar.gz\"\ncache_dir = \"/c\"\n", "is not an http:// or https:// URL"},
		{"no cache", "[rules]\nsource = \"https://h/x.map\"\n", ":1: [rules]: cache_dir: is required with source"},
		{"poll too short", base + "poll = \"100ms\"\n", ":4: [rules]: poll: 100ms is shorter than 1s"},
		{"poll a number", base + "poll = 5\n", "must be a duration in quotes"},
		{"both headers", base + "source_header = \"A: b\"\nsource_header_file = \"/s\"\n", "source_header_file: set source_header or source_header_file, not both"},
		{"header without colon", base + "source_header = \"Bearer abc\"\n", `:4: [rules]: source_header: "..." is not a header`},
		{"header line end", base + "source_header = \"Authorization: Bearer abc\\r\\nX: y\"\n", "holds a control character"},
		{"header bad name", base + "source_header = \"Auth orization: x\"\n", "is not a token"},
		{"keep 0 is default, -1 is not", base + "keep_versions = -1\n", "keep_versions: -1 is out of range"},
		{"local rules too", base + "\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n", "source: the rules come from the source: move this file's [[rule]]"},
		{"defaults too", base + "\n[rules.defaults]\nstatus = 302\n", "the rules come from the source"},
		{"poll without source", "[rules]\npoll = \"5s\"\n", ":2: [rules]: poll: only means something with [rules] source"},
		{"misspelt", base + "keep_version = 3\n", "keep_version: unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": tt.toml}))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load = %v, want an error with %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "Bearer abc") {
				t.Errorf("the error shows the header's secret: %v", err)
			}
		})
	}
}

func TestLoadRuleSet(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.map"), []byte("/a /b;\n"), 0o644)
	tests := []struct {
		name  string
		files map[string]string
		link  string // a link named "link.map" to this
		want  string // "" for no error
		rules int
	}{
		{"rules and maps", map[string]string{"redirectd.toml": "[rules.defaults]\nstatus = 302\n[[rule]]\nfrom = \"/x\"\nto = \"/y\"\n[[map]]\nfile = \"m/a.map\"\n",
			"m/a.map": "/a /b;\n/c /d;\n"}, "", "", 3},
		{"server table", map[string]string{"redirectd.toml": "[server]\nlisten = \":80\"\n"}, "", "redirectd.toml:1: server: a rule set from a source holds only", 0},
		{"upstream table", map[string]string{"redirectd.toml": "[upstream]\nservers = [\"a:1\"]\n"}, "", "upstream: a rule set from a source holds only", 0},
		{"rules source", map[string]string{"redirectd.toml": "[rules]\nwatch = true\n"}, "", "redirectd.toml:2: [rules]: watch: a rule set from a source may set only [rules] order and [rules.defaults]", 0},
		{"map outside by ..", map[string]string{"redirectd.toml": "[[map]]\nfile = \"../secret.map\"\n"}, "", "invalid argument", 0},
		{"map outside by path", map[string]string{"redirectd.toml": "[[map]]\nfile = \"" + filepath.Join(outside, "secret.map") + "\"\n"}, "", "invalid argument", 0},
		{"map outside by link", map[string]string{"redirectd.toml": "[[map]]\nfile = \"link.map\"\n"}, filepath.Join(outside, "secret.map"), "path escapes from parent", 0},
		{"bad rule", map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/x\"\nto = \"/y\"\nstatus = 200\n"}, "", "redirectd.toml:4: [[rule]] #1: status: 200 is not a redirect status", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
				os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
			}
			if tt.link != "" {
				os.Symlink(tt.link, filepath.Join(dir, "link.map"))
			}
			cfg, err := config.LoadRuleSet(dir, "redirectd.toml")
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if cfg.Set.Len() != tt.rules {
					t.Errorf("%d rules, want %d", cfg.Set.Len(), tt.rules)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadRuleSet = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
