package config_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// locationsConfig is a site written by hand: a www -> apex return for
// one host, a forwarding docs location with an unanchored rewrite and a
// nested exact location, and a regex location for every host.
const locationsConfig = `
[upstream]
servers = ["127.0.0.1:9"]

[upstreams.docs]
servers = ["127.0.0.1:10"]

[[server_rewrite]]
host = "www.example.com"
steps = "return 308 https://example.com$request_uri;"

[[location]]
host = "example.com"
path = "/docs/"
upstream = "docs"
upstream_uri = "/v2/"
steps = '''
rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;
rewrite ^/docs/keep/(.*)$ /kept/$1 break;
'''

  [[location.location]]
  match = "exact"
  path = "/docs/healthz"
  steps = 'return 200 "ok";'

[[location]]
match = "regex_ci"
path = '\.php$'
steps = "return 410;"
`

func TestLocationsLoad(t *testing.T) {
	cfg, err := loadText(locationsConfig, "")
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Action         rewrite.Action
		Status         int
		Location, Body string
		URI, Upstream  string
	}
	tests := []struct {
		host, target string
		want         got
	}{
		{"www.example.com", "/a?b", got{Action: rewrite.Redirect, Status: 308, Location: "https://example.com/a?b"}},
		{"example.com", "/docs/a/usage", got{Action: rewrite.Redirect, Status: 302, Location: "/docs/a/usage/overview.html"}},
		{"example.com", "/docs/a", got{Action: rewrite.Forward, URI: "/v2/a", Upstream: "docs"}},
		{"example.com", "/docs/keep/a", got{Action: rewrite.Forward, URI: "/kept/a", Upstream: "docs"}},
		{"example.com", "/docs/healthz", got{Action: rewrite.Answer, Status: 200, Body: "ok"}},
		{"example.com", "/docs/x.PHP", got{Action: rewrite.Answer, Status: 410}},
		{"other.example", "/docs/a", got{Action: rewrite.Forward, URI: "/docs/a"}},
	}
	hosts := cfg.Set.Locations().(*rewrite.Hosts)
	for _, tt := range tests {
		path, query, _ := strings.Cut(tt.target, "?")
		req := &rewrite.Request{Host: []byte(tt.host), Target: []byte(tt.target), Path: []byte(path), Query: []byte(query)}
		var s rewrite.Scratch
		var res rewrite.Result
		hosts.Lookup(req.Host, false).Run(&s, req, &res)
		g := got{res.Action, res.Status, string(res.Location), string(res.Body), string(res.URI), res.Upstream}
		if d := cmp.Diff(tt.want, g); d != "" {
			t.Errorf("%s%s: (-want +got)\n%s", tt.host, tt.target, d)
		}
	}
}

func TestLocationsErrors(t *testing.T) {
	tests := []struct{ toml, want string }{
		{"[[location]]\npath = \"/a\"\nsteps = '''\nreturn 301 /b;\nrewrite ^ /c\n'''\n",
			"c.toml:5: [[location]] /a: steps: rewrite: missing ';' at the end"},
		{"[[location]]\npath = \"/a\"\nsteps = \"return 200 $nope;\"\n",
			"c.toml:3: [[location]] /a: steps: unknown variable $nope: not the request's, and no set or named capture defines it"},
		{"[[location]]\nmatch = \"fuzzy\"\npath = \"/a\"\n",
			`c.toml:2: [[location]] #1: match: "fuzzy" is no kind of location; kinds: exact, prefix, prefix_noregex, regex, regex_ci, named`},
		{"[[location]]\npath = \"/a\"\nupstream = \"nope\"\n",
			`c.toml:3: [[location]] #1: upstream: "nope" is no group; there are no groups: add [upstream] or [upstreams.NAME]`},
		{"[[location]]\npath = \"/a/\"\n[[location.location]]\npath = \"/b\"\n",
			`c.toml:4: [[location]] /b: path: is outside location "/a/"`},
		{"[[location]]\npath = \"/a/\"\nfrom = \"/x\"\n",
			"c.toml:3: [[location]] #1: from: unknown key; known keys here: host, hosts, scheme, match, path, steps, upstream, upstream_uri, intercept_errors, location"},
		{"[[server_rewrite]]\nhost = \"a.*.example.com\"\nsteps = \"break;\"\n",
			`c.toml:2: [[server_rewrite]] #1: host: "a.*.example.com" has a '*' other than a leading "*."; write *.example.com for any subdomain`},
		{"[[server_rewrite]]\nhosts = [\"a.example.com\", \"b.example.com\"]\ndefault_server = true\n",
			`c.toml:3: [[server_rewrite]] #1: default_server: needs one host: the server that answers the hosts no server names`},
		{"[[server_rewrite]]\nhost = \"~^(a\"\nsteps = \"break;\"\n",
			"c.toml:2: [[server_rewrite]] (host ~^(a): host: invalid regex \"^(a\": error parsing regexp: missing closing ): `(?i)^(a`"},
		{"[[server_rewrite]]\nhost = \".example.com\"\n[[server_rewrite]]\nhost = \"example.com\"\n",
			`c.toml:4: [[server_rewrite]] (host example.com): host: "example.com" is named twice`},
		{"[[location]]\nmatch = \"regex\"\npath = '^/(a'\n",
			"c.toml:3: [[location]] ~ ^/(a: path: invalid regex \"^/(a\": error parsing regexp: missing closing ): `^/(a`"},
	}
	for _, tt := range tests {
		_, err := loadText(tt.toml, "")
		if err == nil || err.Error() != tt.want {
			t.Errorf("load(%q)\n = %v\nwant %s", tt.toml, err, tt.want)
		}
	}
}

// TestNoLocationsNoPhase: a config without [[location]] or
// [[server_rewrite]] has no location phase, so that it answers as before.
func TestNoLocationsNoPhase(t *testing.T) {
	cfg, err := loadText("[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Set.Locations() != nil || cfg.Locations != nil {
		t.Fatal("a location phase without locations")
	}
}

// TestLocationsReadmeExample loads the example of config/README.md's
// [[location]] section and asks it what its comments promise.
func TestLocationsReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := testutil.FencedBlock(t, string(readme), "## `[[location]]`\n", "toml")
	cfg, err := loadText("[upstreams.docs]\nservers = [\"127.0.0.1:9\"]\n"+block, "")
	if err != nil {
		t.Fatalf("%v\n%s", err, block)
	}
	hosts := cfg.Set.Locations().(*rewrite.Hosts)
	for _, tc := range []struct{ target, want string }{
		{"/docs/v1/a/usage", "302 /docs/v1/a/usage/overview.html"},
		{"/docs/v1/a?lang=de", "302 /docs/de/docs/v1/a"},
		{"/docs/v1/a", "forward docs /v2/a"},
		{"/docs/v1/healthz", "200 ok"},
	} {
		path, query, _ := strings.Cut(tc.target, "?")
		req := &rewrite.Request{Host: []byte("example.com"), Target: []byte(tc.target), Path: []byte(path), Query: []byte(query)}
		var s rewrite.Scratch
		var res rewrite.Result
		hosts.Lookup(req.Host, false).Run(&s, req, &res)
		got := fmt.Sprintf("%d %s%s", res.Status, res.Location, res.Body)
		if res.Action == rewrite.Forward {
			got = "forward " + res.Upstream + " " + string(res.URI)
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.target, got, tc.want)
		}
	}
}
