package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// locationsConfig is a config of [[server_rewrite]] and [[location]]
// tables beside a flat rule, whose answers explain, test, /rules and the
// console show. Its line numbers are in the tests below.
const locationsConfig = `[admin]
listen = "off"

[access_log]
enabled = false

[upstreams.docs]
servers = ["127.0.0.1:9"]

[[rule]]
from = "/flat"
to = "/flat-new"

[[server_rewrite]]
host = "www.example.com"
steps = 'return 308 https://example.com$request_uri;'

[[location]]
match = "exact"
path = "/healthz"
steps = 'return 200 "ok";'

[[location]]
path = "/docs/"
upstream = "docs"
upstream_uri = "/v2/"
steps = '''
rewrite ^/docs/old/(.*)$ /docs/new/$1 last;
rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;
'''

[[location]]
match = "exact"
path = "/drop"
steps = 'return 444;'
`

// writeLocationsConfig writes locationsConfig to a temporary folder.
func writeLocationsConfig(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "site.toml")
	if err := os.WriteFile(file, []byte(locationsConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestExplainLocations: explain says what the location phase decides
// when no flat rule answers (and what the server's own steps decide
// before the rules): each location chosen and each step that matched,
// with file:line, the URI changes and the answer.
func TestExplainLocations(t *testing.T) {
	t.Parallel()
	file := writeLocationsConfig(t)
	tests := []struct {
		url  string
		want []string
	}{
		{"http://example.com/docs/old/a/usage?x=1", []string{
			`phase:    no rule matches host "example.com" path "/docs/old/a/usage"; the location phase answers`,
			`chosen:   site.toml:23 location /docs/, for /docs/old/a/usage?x=1`,
			`step:     site.toml:28 rewrite ^/docs/old/(.*)$ /docs/new/$1 last; the URI is now /docs/new/a/usage?x=1`,
			`chosen:   site.toml:23 location /docs/, for /docs/new/a/usage?x=1`,
			`step:     site.toml:29 rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect`,
			`decided:  in location /docs/ (site.toml:23)`,
			`status:   302`,
			`location: /docs/new/a/usage/overview.html?x=1`,
		}},
		{"http://example.com/docs/old/b", []string{
			`phase:    no rule matches host "example.com" path "/docs/old/b"; the location phase answers`,
			`chosen:   site.toml:23 location /docs/, for /docs/old/b`,
			`step:     site.toml:28 rewrite ^/docs/old/(.*)$ /docs/new/$1 last; the URI is now /docs/new/b`,
			`chosen:   site.toml:23 location /docs/, for /docs/new/b`,
			`decided:  in location /docs/ (site.toml:23)`,
			`forward:  to upstream group "docs", with the target /v2/new/b`,
		}},
		{"http://example.com/healthz", []string{
			`phase:    no rule matches host "example.com" path "/healthz"; the location phase answers`,
			`chosen:   site.toml:18 location = /healthz, for /healthz`,
			`step:     site.toml:21 return 200 "ok"`,
			`decided:  in location = /healthz (site.toml:18)`,
			`status:   200 (answered here)`,
			`body:     "ok"`,
		}},
		{"http://example.com/drop", []string{
			`phase:    no rule matches host "example.com" path "/drop"; the location phase answers`,
			`chosen:   site.toml:32 location = /drop, for /drop`,
			`step:     site.toml:35 return 444`,
			`decided:  in location = /drop (site.toml:32)`,
			`status:   444 (the connection is closed with no answer)`,
		}},
		{"http://www.example.com/flat?q", []string{
			`phase:    the [[server_rewrite]] steps of host "www.example.com" answer, before any rule`,
			`step:     site.toml:16 return 308 https://example.com$request_uri`,
			`decided:  by the server's own steps, before the flat rules`,
			`status:   308`,
			`location: https://example.com/flat?q`,
		}},
		{"http://example.com/elsewhere", []string{
			`phase:    no rule matches host "example.com" path "/elsewhere"; the location phase answers`,
			`chosen:   no location matches /elsewhere`,
			`forward:  to the upstream group the [[route]]s pick, else [upstream] (404 without one), with the target /elsewhere`,
		}},
	}
	for _, tt := range tests {
		code, out, stderr := runCmd("explain", "-config", file, tt.url)
		if code != 0 {
			t.Errorf("explain %s: exit %d\n%s", tt.url, code, stderr)
			continue
		}
		got := strings.Split(strings.TrimSuffix(strings.ReplaceAll(out, filepath.Dir(file)+string(filepath.Separator), ""), "\n"), "\n")
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("explain %s: (-want +got)\n%s", tt.url, d)
		}
	}
	// A flat rule still answers first, as the server has it.
	if code, out, _ := runCmd("explain", "-config", file, "http://example.com/flat"); code != 0 || !strings.Contains(out, "location: /flat-new") || strings.Contains(out, "phase:") {
		t.Errorf("explain /flat: exit %d\n%s", code, out)
	}
}
