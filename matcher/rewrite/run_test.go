package rewrite

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fields is a request's header fields for tests.
type fields map[string]string

func (f fields) Header(name []byte) []byte {
	for k, v := range f {
		if strings.EqualFold(k, string(name)) {
			return []byte(v)
		}
	}
	return nil
}
func (fields) Country() string { return "" }
func (fields) HTTPS() bool     { return false }

// request builds a Request for target on host.
func request(host, target string, f fields) *Request {
	path, query, _ := strings.Cut(target, "?")
	return &Request{Host: []byte(host), Target: []byte(target), Path: []byte(path), Query: []byte(query),
		Method: []byte("GET"), Port: []byte("80"), Fields: f}
}

// answer is a Result in a form to compare.
type answer struct {
	Action          Action
	Status          int
	Location, Body  string
	URI, Where, Ups string
}

func run(t *testing.T, p *Program, req *Request) answer {
	t.Helper()
	var s Scratch
	var res Result
	p.Run(&s, req, &res)
	return answer{res.Action, res.Status, string(res.Location), string(res.Body), string(res.URI), res.Where, res.Upstream}
}

// site is a server with one of each construct.
var site = Spec{
	Steps: []Text{{Src: `if ($host = www.example.com) { return 308 https://example.com$request_uri; }
set $lang en;`}},
	Locations: []LocationSpec{
		{Match: Exact, Path: "/healthz", Steps: `return 200 "ok\n";`},
		{Match: Exact, Path: "/gone", Steps: `return 410;`},
		{Match: Exact, Path: "/drop", Steps: `return 444;`},
		{Match: Prefix, Path: "/", Pass: true},
		{Match: Prefix, Path: "/docs/", Pass: true, Upstream: "docs", URI: "/v2/", HasURI: true, Steps: `
rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;
rewrite ^/docs/old/(.*)$ /docs/new/$1 last;
rewrite ^/docs/keep/(.*)$ /kept/$1 break;
if ($arg_lang ~* ^(?<l>de|fr)$) { return 302 /docs/$l$uri; }`,
			Locations: []LocationSpec{
				{Match: PrefixNoRegex, Path: "/docs/static/", Steps: `return 200 static;`},
			}},
		{Match: RegexCI, Path: `\.(png|jpg)$`, Steps: `return 301 /img$uri;`},
		{Match: Regex, Path: `^/loop/(\d+)$`, Steps: `rewrite ^/loop/(\d+)$ /loop/$1 last;`},
		{Match: Prefix, Path: "/p/", Steps: `rewrite ^/p/(.*)$ /q/$1 permanent;`},
		{Match: Prefix, Path: "/chain/", Steps: `rewrite ^/chain/a$ /chain/b; rewrite ^/chain/b$ /final?x=1;`},
		{Match: Prefix, Path: "/final", Steps: `return 200 "final $args $lang";`},
		{Match: Prefix, Path: "/ext/", Steps: `rewrite ^/ext/(.*) https://other.example/$1;`},
		{Match: Prefix, Path: "/q/", Steps: `rewrite ^/q/(.*)$ /r/$1? redirect;`},
		{Match: Prefix, Path: "/c/", Steps: `if ($cookie_beta) { return 302 /beta$uri; } if ($http_x_mode != on) { return 403 "no"; } return 200 $request_method;`},
	},
}

func TestRun(t *testing.T) {
	p, err := Compile(site)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, target string
		f            fields
		want         answer
	}{
		{"www.example.com", "/a?b", nil, answer{Action: Redirect, Status: 308, Location: "https://example.com/a?b"}},
		{"example.com", "/healthz", nil, answer{Action: Answer, Status: 200, Body: "ok\n", Where: "= /healthz"}},
		{"example.com", "/gone", nil, answer{Action: Answer, Status: 410, Where: "= /gone"}},
		{"example.com", "/drop", nil, answer{Action: Close, Status: 444, Where: "= /drop"}},
		{"example.com", "/x%20y?a=1", nil, answer{Action: Forward, URI: "/x%20y?a=1", Where: "/"}},
		{"example.com", "/docs/a/usage/", nil, answer{Action: Redirect, Status: 302, Location: "/docs/a/usage/overview.html", Where: "/docs/"}},
		{"example.com", "/docs/a/b", nil, answer{Action: Forward, URI: "/v2/a/b", Where: "/docs/", Ups: "docs"}},
		{"example.com", "/docs/a//b?z", nil, answer{Action: Forward, URI: "/v2/a/b?z", Where: "/docs/", Ups: "docs"}},
		{"example.com", "/docs/keep/x y", nil, answer{Action: Forward, URI: "/kept/x%20y", Where: "/docs/", Ups: "docs"}},
		{"example.com", "/docs/old/x", nil, answer{Action: Forward, URI: "/v2/new/x", Where: "/docs/", Ups: "docs"}},
		{"example.com", "/docs", nil, answer{Action: Redirect, Status: 301, Location: "/docs/", Where: "/docs/"}},
		// ^~ stops the regexes of its own level only: /docs/'s level
		// still tries the regex locations.
		{"example.com", "/docs/static/a.png", nil, answer{Action: Redirect, Status: 301, Location: "/img/docs/static/a.png", Where: `~* \.(png|jpg)$`}},
		{"example.com", "/docs/static/a.css", nil, answer{Action: Answer, Status: 200, Body: "static", Where: "^~ /docs/static/"}},
		{"example.com", "/docs/a.PNG", nil, answer{Action: Redirect, Status: 301, Location: "/img/docs/a.PNG", Where: `~* \.(png|jpg)$`}},
		{"example.com", "/docs/x?lang=DE", nil, answer{Action: Redirect, Status: 302, Location: "/docs/DE/docs/x", Where: "/docs/"}},
		{"example.com", "/loop/1", nil, answer{Action: Answer, Status: 500, Where: `~ ^/loop/(\d+)$`}},
		{"example.com", "/p/a?k=v", nil, answer{Action: Redirect, Status: 301, Location: "/q/a?k=v", Where: "/p/"}},
		{"example.com", "/q/a?k=v", nil, answer{Action: Redirect, Status: 302, Location: "/r/a", Where: "/q/"}},
		{"example.com", "/chain/a?o=2", nil, answer{Action: Answer, Status: 200, Body: "final x=1&o=2 en", Where: "/final"}},
		{"example.com", "/ext/a b", nil, answer{Action: Redirect, Status: 302, Location: "https://other.example/a%20b", Where: "/ext/"}},
		{"example.com", "/ext/a%2Bb", nil, answer{Action: Redirect, Status: 302, Location: "https://other.example/a+b", Where: "/ext/"}},
		{"example.com", "/ext/caf%C3%A9%23", nil, answer{Action: Redirect, Status: 302, Location: "https://other.example/caf%C3%A9%23", Where: "/ext/"}},
		{"example.com", "/c/x", fields{"Cookie": "a=1; beta=1"}, answer{Action: Redirect, Status: 302, Location: "/beta/c/x", Where: "/c/"}},
		{"example.com", "/c/x", fields{"X-Mode": "off"}, answer{Action: Answer, Status: 403, Body: "no", Where: "/c/"}},
		{"example.com", "/c/x", fields{"X-Mode": "on"}, answer{Action: Answer, Status: 200, Body: "GET", Where: "/c/"}},
	}
	for _, tt := range tests {
		got := run(t, p, request(tt.host, tt.target, tt.f))
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s%s: (-want +got)\n%s", tt.host, tt.target, d)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		spec Spec
		want string
	}{
		{Spec{Steps: []Text{{"rewrite ^/a /b", 3}}}, "line 3: rewrite: missing ';' at the end"},
		{Spec{Steps: []Text{{"\nfoo bar;", 1}}}, "line 2: foo: unknown directive; steps are rewrite, return, if, set, break, error_page, try_files and internal"},
		{Spec{Steps: []Text{{"return 301 $nope;", 1}}}, "line 1: unknown variable $nope: not the request's, and no set or named capture defines it"},
		{Spec{Steps: []Text{{"if $uri { return 404; }", 1}}}, "line 1: if: the condition must be in parentheses"},
		{Spec{Steps: []Text{{"rewrite ^/(a /b last;", 1}}}, "line 1: rewrite: invalid regex \"^/(a\": error parsing regexp: missing closing ): `^/(a`"},
		{Spec{Steps: []Text{{"rewrite ^/a /b fast;", 1}}}, `line 1: rewrite: invalid flag "fast"; flags are last, break, redirect and permanent`},
		{Spec{Locations: []LocationSpec{{Match: Regex, Path: "x", HasURI: true, Pass: true, URI: "/a"}}}, "location ~ x: a URI part cannot replace the path of a regex or named location (nginx refuses it in proxy_pass)"},
		{Spec{Locations: []LocationSpec{{Path: "/a"}, {Path: "/a"}}}, "location /a: duplicate location"},
		{Spec{Locations: []LocationSpec{{Path: "/a/", Locations: []LocationSpec{{Path: "/b"}}}}}, `location /b: is outside location "/a/"`},
		{Spec{Locations: []LocationSpec{{Path: "/a/", Steps: "\n\nset $1 x;", StepsLine: 10}}}, `location /a/: line 12: set: cannot set "$1": it is the request's`},
	}
	for _, tt := range tests {
		_, err := Compile(tt.spec)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Compile(%+v) = %v, want %s", tt.spec, err, tt.want)
		}
	}
}

func TestRunAllocatesNothing(t *testing.T) {
	p, err := Compile(site)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/docs/a/usage/", "/docs/a/b?x=1", "/healthz", "/chain/a?o=2", "/docs/x?lang=de"} {
		req := request("example.com", target, fields{"X-Mode": "on"})
		var s Scratch
		var res Result
		p.Run(&s, req, &res)
		if n := testing.AllocsPerRun(100, func() { p.Run(&s, req, &res) }); n != 0 {
			t.Errorf("%s: %v allocations per Run", target, n)
		}
	}
	_ = bytes.Equal
}
