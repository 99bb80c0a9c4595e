package rewrite

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// traced is a server whose steps and locations sit on config lines.
var traced = Spec{
	Steps: []Text{{Src: "if ($host = www.example.com) { return 308 https://example.com$request_uri; }\nset $lang en;", Line: 3}},
	Locations: []LocationSpec{
		{Line: 10, Match: Prefix, Path: "/docs/", Pass: true, Upstream: "docs", URI: "/v2/", HasURI: true, StepsLine: 12, Steps: "rewrite ^/docs/old/(.*)$ /docs/new/$1 last;\nrewrite ^/docs/keep/(.*)$ /kept/$1 break;",
			Locations: []LocationSpec{{Line: 15, Match: PrefixNoRegex, Path: "/docs/static/", StepsLine: 16, Steps: `return 200 "static";`}}},
		{Line: 20, Match: Exact, Path: "/drop", StepsLine: 21, Steps: "return 444;"},
		{Line: 25, Match: Regex, Path: `^/loop/(\d+)$`, StepsLine: 26, Steps: `rewrite ^/loop/(\d+)$ /loop/$1 last;`},
	},
}

func TestExplain(t *testing.T) {
	p, err := Compile(traced)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, target string
		want         []TraceStep
		server       bool
		whereLine    int
	}{
		{"www.example.com", "/a", []TraceStep{
			{Line: 3, Text: "if ($host = www.example.com)", URI: "/a"},
			{Line: 3, Text: "return 308 https://example.com$request_uri", URI: "/a"},
		}, true, 0},
		{"example.com", "/docs/old/x?a=1", []TraceStep{
			{Line: 3, Text: "if ($host = www.example.com)", URI: "/docs/old/x?a=1", NotHeld: true, Value: "example.com"},
			{Line: 4, Text: "set $lang en", URI: "/docs/old/x?a=1"},
			{Line: 10, Location: "/docs/", URI: "/docs/old/x?a=1"},
			{Line: 12, Text: "rewrite ^/docs/old/(.*)$ /docs/new/$1 last", URI: "/docs/new/x?a=1", Changed: true},
			{Line: 10, Location: "/docs/", URI: "/docs/new/x?a=1"},
		}, false, 10},
		{"example.com", "/docs/static/a", []TraceStep{
			{Line: 3, Text: "if ($host = www.example.com)", URI: "/docs/static/a", NotHeld: true, Value: "example.com"},
			{Line: 4, Text: "set $lang en", URI: "/docs/static/a"},
			{Line: 15, Location: "^~ /docs/static/", URI: "/docs/static/a"},
			{Line: 16, Text: `return 200 "static"`, URI: "/docs/static/a"},
		}, false, 15},
		{"example.com", "/nowhere", []TraceStep{
			{Line: 3, Text: "if ($host = www.example.com)", URI: "/nowhere", NotHeld: true, Value: "example.com"},
			{Line: 4, Text: "set $lang en", URI: "/nowhere"},
			{URI: "/nowhere"},
		}, false, 0},
	}
	for _, tt := range tests {
		req := request(tt.host, tt.target, nil)
		tr := p.Explain(req)
		if d := cmp.Diff(tt.want, tr.Steps); d != "" {
			t.Errorf("%s%s: steps (-want +got)\n%s", tt.host, tt.target, d)
		}
		if tr.Server != tt.server || tr.WhereLine != tt.whereLine {
			t.Errorf("%s%s: Server %v WhereLine %d, want %v %d", tt.host, tt.target, tr.Server, tr.WhereLine, tt.server, tt.whereLine)
		}
	}
}

// TestExplainAnswersAsRun: Explain's Result is Run's, on every case of
// TestRun's site.
func TestExplainAnswersAsRun(t *testing.T) {
	p, err := Compile(site)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/healthz", "/gone", "/drop", "/x%20y?a=1", "/docs/a/usage/", "/docs/a/b", "/docs/keep/x y",
		"/docs/old/x", "/docs", "/docs/static/a.png", "/docs/x?lang=DE", "/loop/1", "/p/a?k=v", "/q/a?k=v", "/chain/a?o=2", "/ext/a b", "/c/x"} {
		req := request("example.com", target, fields{"X-Mode": "on"})
		want := run(t, p, req)
		r := p.Explain(req).Result
		got := answer{r.Action, r.Status, string(r.Location), string(r.Body), string(r.URI), r.Where, r.Upstream}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: Explain (-Run +Explain)\n%s", target, d)
		}
	}
}

func TestList(t *testing.T) {
	one := traced
	h, err := CompileHosts([]HostSpec{{Host: "", Spec: Spec{Locations: one.Locations[1:2]}},
		{Host: "example.com", Spec: Spec{Steps: one.Steps, Locations: one.Locations}}})
	if err != nil {
		t.Fatal(err)
	}
	h.SetFile("site.toml")
	want := []Listed{
		{Location: "= /drop", Kind: Exact, Path: "/drop", Line: 20, Steps: "return 444;"},
		{Host: "example.com", Line: 3, Steps: traced.Steps[0].Src},
		{Host: "example.com", Location: "/docs/", Path: "/docs/", Line: 10, Steps: traced.Locations[0].Steps, Pass: true, Upstream: "docs", URI: "/v2/", HasURI: true},
		{Host: "example.com", Location: "^~ /docs/static/", Parent: "/docs/", Kind: PrefixNoRegex, Path: "/docs/static/", Line: 15, Steps: `return 200 "static";`},
		{Host: "example.com", Location: `~ ^/loop/(\d+)$`, Kind: Regex, Path: `^/loop/(\d+)$`, Line: 25, Steps: `rewrite ^/loop/(\d+)$ /loop/$1 last;`},
	}
	if d := cmp.Diff(want, h.List()); d != "" {
		t.Errorf("List (-want +got)\n%s", d)
	}
	if h.File() != "site.toml" {
		t.Errorf("File() = %q", h.File())
	}
}
