package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/engine/testport"
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

[[location]]
path = "/secure/"
steps = 'if ($scheme = http) { return 301 https://$host$request_uri; }'
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
		{"https://example.com/secure/a", []string{
			`phase:    no rule matches host "example.com" path "/secure/a"; the location phase answers`,
			`chosen:   site.toml:37 location /secure/, for /secure/a`,
			`step:     site.toml:39 if ($scheme = http) does not hold: $scheme is "https"`,
			`decided:  in location /secure/ (site.toml:37)`,
			`forward:  to the upstream group the [[route]]s pick, else [upstream] (404 without one), with the target /secure/a`,
		}},
		{"http://example.com/secure/a", []string{
			`phase:    no rule matches host "example.com" path "/secure/a"; the location phase answers`,
			`chosen:   site.toml:37 location /secure/, for /secure/a`,
			`step:     site.toml:39 if ($scheme = http)`,
			`step:     site.toml:39 return 301 https://$host$request_uri`,
			`decided:  in location /secure/ (site.toml:37)`,
			`status:   301`,
			`location: https://example.com/secure/a`,
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

// TestAdminLocations runs the binary on locationsConfig and asks the
// admin listener: /rules lists the rule, then the server steps and
// locations with their steps and file:line; /explain says what the
// location phase decides, as the explain command does.
func TestAdminLocations(t *testing.T) {
	t.Parallel()
	addr, adminAddr := testport.Free(t), testport.Free(t)
	file := filepath.Join(t.TempDir(), "site.toml")
	cfg := strings.Replace(locationsConfig, "[admin]\nlisten = \"off\"\n",
		fmt.Sprintf("server.listen = %q\nadmin = { listen = %q, token = \"s3cret\" }\n", addr, adminAddr), 1) // the same lines
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	nd := startNode(t, nodeConfig{File: file, Args: []string{"-log-format", "json"}})
	stderr := nd.stderr
	if status, _, err := firstAnswer(addr, "/flat", time.Now().Add(10*time.Second)); err != nil || status != 301 {
		t.Fatalf("first answer: %d %v\n%s", status, err, stderr.String())
	}
	get := func(path string) string {
		req, _ := http.NewRequest("GET", "http://"+adminAddr+path, nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		return string(body)
	}
	type entry struct {
		Kind, From, To, Host, Source, Location, Parent, Steps, Upstream string
		UpstreamURI                                                     string `json:"upstream_uri"`
	}
	var got []entry
	if err := json.Unmarshal([]byte(get("/rules")), &got); err != nil {
		t.Fatal(err)
	}
	at := func(line int) string { return file + ":" + strconv.Itoa(line) }
	want := []entry{
		{Kind: "exact", From: "/flat", To: "/flat-new", Source: at(10)},
		{Kind: "location", From: "/healthz", Source: at(18), Location: "= /healthz", Steps: `return 200 "ok";`},
		{Kind: "location", From: "/docs/", To: "upstream docs /v2/", Source: at(23), Location: "/docs/", Upstream: "docs", UpstreamURI: "/v2/",
			Steps: "rewrite ^/docs/old/(.*)$ /docs/new/$1 last;\nrewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;\n"},
		{Kind: "location", From: "/drop", Source: at(32), Location: "= /drop", Steps: "return 444;"},
		{Kind: "location", From: "/secure/", Source: at(37), Location: "/secure/", Steps: "if ($scheme = http) { return 301 https://$host$request_uri; }"},
		{Kind: "server_rewrite", Host: "www.example.com", Source: at(16), Steps: "return 308 https://example.com$request_uri;"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("/rules (-want +got)\n%s", d)
	}
	if body := get("/rules?unused=1"); strings.Contains(body, `"location"`) {
		t.Errorf("/rules?unused=1 lists locations:\n%s", body)
	}
	body := get("/explain?url=" + url.QueryEscape("http://example.com/docs/old/b"))
	for _, w := range []string{
		"chosen:   " + at(23) + " location /docs/, for /docs/old/b",
		"step:     " + at(28) + " rewrite ^/docs/old/(.*)$ /docs/new/$1 last; the URI is now /docs/new/b",
		`forward:  to upstream group "docs", with the target /v2/new/b`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("/explain lacks %q:\n%s", w, body)
		}
	}
}

// TestTestCommandLocations: a failed case that the location phase
// answered (or the server's own steps) shows explain's trace: the
// locations chosen and the steps that matched, with file:line.
func TestTestCommandLocations(t *testing.T) {
	dir := writeCaseFiles(t, "site.toml", locationsConfig, "c.cases",
		"GET http://example.com/docs/old/a/usage -> 301 https://example.com/docs/a\n"+
			"GET http://example.com/healthz -> 404\n"+
			"GET http://www.example.com/flat -> 301 https://example.com/flat-new\n"+
			"GET http://example.com/flat -> 301 /flat-new\n")
	code, out, _ := runCmd("test", "-config", filepath.Join(dir, "site.toml"), filepath.Join(dir, "c.cases"))
	out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
	want := `FAIL c.cases:1: GET http://example.com/docs/old/a/usage -> 301 https://example.com/docs/a
    - want: 301 https://example.com/docs/a
    + got:  302 /docs/new/a/usage/overview.html
      rule: no rule matches host "example.com" path "/docs/old/a/usage": the location phase answers
      chosen:   site.toml:23 location /docs/, for /docs/old/a/usage
      step:     site.toml:28 rewrite ^/docs/old/(.*)$ /docs/new/$1 last; the URI is now /docs/new/a/usage
      chosen:   site.toml:23 location /docs/, for /docs/new/a/usage
      step:     site.toml:29 rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect
      decided:  in location /docs/ (site.toml:23)
      status:   302
      location: /docs/new/a/usage/overview.html
FAIL c.cases:2: GET http://example.com/healthz -> 404
    - want: 404
    + got:  200
      rule: no rule matches host "example.com" path "/healthz": the location phase answers
      chosen:   site.toml:18 location = /healthz, for /healthz
      step:     site.toml:21 return 200 "ok"
      decided:  in location = /healthz (site.toml:18)
      status:   200 (answered here)
      body:     "ok"
FAIL c.cases:3: GET http://www.example.com/flat -> 301 https://example.com/flat-new
    - want: 301 https://example.com/flat-new
    + got:  308 https://example.com/flat
      rule: the [[server_rewrite]] steps of host "www.example.com", before any rule
      step:     site.toml:16 return 308 https://example.com$request_uri
      decided:  by the server's own steps, before the flat rules
      status:   308
      location: https://example.com/flat
FAIL: 3 of 4 cases failed (1 case file)
`
	if d := cmp.Diff(want, out); code != 1 || d != "" {
		t.Errorf("exit %d, output (-want +got)\n%s", code, d)
	}
}
