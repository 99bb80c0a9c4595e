package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostConfig's server steps read the Host field ($http_host), as an
// Apache import's RewriteCond %{HTTP_HOST} does, and its Locations are
// made absolute, as every nginx and Apache import writes them.
const hostConfig = `[server]
absolute_redirect = true

[admin]
listen = "off"

[[rule]]
from = "/old"
to = "/new"

[[server_rewrite]]
steps = 'if ($http_host ~* ^www\.(.+)$) { return 301 http://$1$request_uri; }'
`

// TestExplainHostField: explain sends the URL's host as the Host field,
// as a client does, so steps reading $http_host decide as the server
// does; an -H Host field is taken instead.
func TestExplainHostField(t *testing.T) {
	t.Parallel()
	dir := writeCaseFiles(t, "site.toml", hostConfig)
	file := filepath.Join(dir, "site.toml")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"http://www.old.example/a/b?x=1"}, "location: http://old.example/a/b?x=1"},
		{[]string{"-H", "Host: www.other.example", "http://www.old.example/a"}, "location: http://other.example/a"},
	} {
		code, out, stderr := runCmd(append([]string{"explain", "-config", file}, tt.args...)...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("explain %q: exit %d, want a line %q:\n%s%s", tt.args, code, tt.want, out, stderr)
		}
	}
}

// TestTestCommandAbsoluteLocations: with absolute_redirect, a case's
// Location names the port of the case's URL (none for 80), as its client
// would get it, not the test server's loopback port; a failed case's
// trace shows $http_host as the server read it.
func TestTestCommandAbsoluteLocations(t *testing.T) {
	t.Parallel()
	dir := writeCaseFiles(t, "site.toml", hostConfig, "c.cases",
		"GET http://www.old.example/a?x=1 -> 301 http://old.example/a?x=1\n"+
			"GET http://old.example/old -> 301 http://old.example/new\n"+
			"GET http://old.example:8080/old -> 301 http://old.example:8080/new\n"+
			"GET /old -> 301 http://redirectd-test.invalid/new\n"+
			"GET https://old.example/old -> 301 https://old.example/new\n"+
			"GET https://old.example:8443/old -> 301 https://old.example:8443/new\n",
		"fail.cases", "GET http://Old.Example/zz -> 301 http://old.example/zz\n")
	code, out, _ := runCmd("test", "-config", filepath.Join(dir, "site.toml"), filepath.Join(dir, "c.cases"))
	if code != 0 || out != "ok: 6 cases passed (1 case file)\n" {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = runCmd("test", "-config", filepath.Join(dir, "site.toml"), filepath.Join(dir, "fail.cases"))
	out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
	want := `FAIL fail.cases:1: GET http://Old.Example/zz -> 301 http://old.example/zz
    - want: 301 http://old.example/zz
    + got:  404
      rule: no rule matches host "Old.Example" path "/zz": the location phase answers
      step:     site.toml:12 if ($http_host ~* ^www\.(.+)$) does not hold: $http_host is "Old.Example"
      chosen:   no location matches /zz
      forward:  to the upstream group the [[route]]s pick, else [upstream] (404 without one), with the target /zz
FAIL: 1 of 1 case failed (1 case file)
`
	if d := cmp.Diff(want, out); code != 1 || d != "" {
		t.Errorf("exit %d, output (-want +got)\n%s", code, d)
	}
}
