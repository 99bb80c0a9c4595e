package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// answerOf is what TestAnswersConfig compares of a URL's answer.
type answerOf struct {
	Status   int
	Location string
	Headers  string
	Source   string
}

// TestAnswersConfig loads 410, 451 and headers from rules, a map and a CSV
// file, and checks what each URL is answered with, as the server appends
// it: the rule's headers merged with the server's, or the server's alone.
func TestAnswersConfig(t *testing.T) {
	file := writeFiles(t, map[string]string{
		"redirectd.toml": `
[server]
headers = { X-Frame-Options = "DENY", Cache-Control = "no-store" }

[[rule]]
from = "/old"
to = "https://example.com/new"
headers = { Cache-Control = "max-age=3600" }

[[rule]]
from = "/gone"
status = 410

[[rule]]
match = "prefix"
from = "/court/"
status = 451
to = ""
headers = { Link = '<https://example.com/notice>; rel="blocked-by"' }

[[map]]
file = "r.map"
headers = { "cache-control" = "max-age=60", X-Robots-Tag = "noindex" }

[[csv]]
file = "bulk.csv"
`,
		"r.map":    "/m/a /x;\n/m/gone 410;\n/m/legal 451;\n",
		"bulk.csv": "source,target,status\n/c/a,/y,302\n/c/gone,,410\n",
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	server := "Cache-Control: no-store\r\nX-Frame-Options: DENY\r\n"
	mapHeaders := "X-Robots-Tag: noindex\r\ncache-control: max-age=60\r\nX-Frame-Options: DENY\r\n"
	tests := []struct {
		path string
		want answerOf
	}{
		{"/old", answerOf{301, "https://example.com/new", "Cache-Control: max-age=3600\r\nX-Frame-Options: DENY\r\n", "redirectd.toml:5"}},
		{"/gone", answerOf{410, "", server, "redirectd.toml:10"}},
		{"/court/case", answerOf{451, "", "Link: <https://example.com/notice>; rel=\"blocked-by\"\r\n" + server, "redirectd.toml:14"}},
		{"/m/a", answerOf{301, "/x", mapHeaders, "r.map:1"}},
		{"/m/gone", answerOf{410, "", mapHeaders, "r.map:2"}},
		{"/m/legal", answerOf{451, "", mapHeaders, "r.map:3"}},
		{"/c/a", answerOf{302, "/y", server, "bulk.csv:2"}},
		{"/c/gone", answerOf{410, "", server, "bulk.csv:3"}},
		{"/miss", answerOf{0, "", server, ""}},
	}
	for _, tt := range tests {
		var m matcher.Match
		got := answerOf{Headers: cfg.Set.Headers()}
		if cfg.Set.Lookup(nil, []byte(tt.path), nil, &m) {
			got.Status = m.Status()
			if matcher.HasLocation(got.Status) {
				got.Location = string(m.AppendLocation(nil, nil))
			}
			if h := m.Headers(); h != "" {
				got.Headers = h
			}
			src := m.Source()
			got.Source = src[strings.LastIndexByte(src, '/')+1:]
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, diff)
		}
	}
}

// TestAnswersConfigErrors checks that each wrong status, to or header is
// reported with its file, line and key.
func TestAnswersConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		config string
		files  map[string]string
		want   []string
	}{
		{"to with 410", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nstatus = 410\n", nil,
			[]string{`redirectd.toml:3: [[rule]] #1: to: "/b" given for a 410 answer, which has no Location; leave to out (or empty)`}},
		{"status 404", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nstatus = 404\n", nil,
			[]string{"redirectd.toml:4: [[rule]] #1: status: 404 is not a redirect status; use 301, 302, 303, 307 or 308, or 410 or 451 (an answer with no Location: leave to out)"}},
		{"to still needed for 301", "[[rule]]\nfrom = \"/a\"\n", nil,
			[]string{"redirectd.toml:1: [[rule]] #1: to: missing; every [[rule]] needs it"}},
		{"header name", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nheaders = { \"X Y\" = \"1\" }\n", nil,
			[]string{`redirectd.toml:4: [[rule]] #1: headers: field name "X Y" holds ' ', which RFC 9110 does not allow in a name; use letters, digits and !#$%&'*+-.^_` + "`|~"}},
		{"header value CR", "[server]\nheaders = { X-A = \"a\\rSet-Cookie: x\" }\n", nil,
			[]string{`redirectd.toml:2: [server]: headers: the value of "X-A" holds a control character at byte 1; a field value is one line of visible characters`}},
		{"header value NUL", "[[map]]\nfile = \"m\"\nheaders = { X-A = \"a\\u0000\" }\n", map[string]string{"m": "/a /b;\n"},
			[]string{`redirectd.toml:3: [[map]] #1: headers: the value of "X-A" holds a control character at byte 1; a field value is one line of visible characters`}},
		{"framing field", "[[csv]]\nfile = \"c.csv\"\nheaders = { content-length = \"0\" }\n", map[string]string{"c.csv": "/a,/b,301\n"},
			[]string{`redirectd.toml:3: [csv]: headers: "content-length" is written by the server itself for every answer; leave it out`}},
		{"Location", "[[rule]]\nfrom = \"/a\"\nstatus = 410\nheaders = { Location = \"/x\" }\n", nil,
			[]string{`redirectd.toml:4: [[rule]] #1: headers: "Location" is written by the server itself for every answer; leave it out`}},
		{"not a table", "[server]\nheaders = \"Cache-Control: no-store\"\n", nil,
			[]string{`redirectd.toml:2: [server]: headers: must be a table of field names to values, such as { Cache-Control = "max-age=3600" }, not a string`}},
		{"empty table", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nheaders = {}\n", nil,
			[]string{`redirectd.toml:4: [[rule]] #1: headers: the table is empty; leave headers out for none`}},
		{"value not a string", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nheaders = { Max = 3 }\n", nil,
			[]string{`redirectd.toml:4: [[rule]] #1: headers: the value of "Max" must be a string, not an integer`}},
		{"map entry with to and 410 status", "[[map]]\nfile = \"m\"\nstatus = 410\n", map[string]string{"m": "/a /b;\n"},
			[]string{`m:1: to: "/b" given for a 410 answer, which has no Location; leave to out (or empty)`}},
		{"csv 410 with target", "[[csv]]\nfile = \"c.csv\"\n", map[string]string{"c.csv": "/a,/b,410\n"},
			[]string{`c.csv:1: to: "/b" given for a 410 answer, which has no Location; leave to out (or empty)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"redirectd.toml": tt.config}
			for k, v := range tt.files {
				files[k] = v
			}
			_, err := config.Load(writeFiles(t, files))
			if err == nil {
				t.Fatal("Load succeeded")
			}
			var got []string
			for _, e := range unwrapAll(err) {
				s := e.Error()
				if i := strings.Index(s, "redirectd.toml:"); i > 0 {
					s = s[i:]
				} else if i := strings.LastIndexByte(s[:max(strings.Index(s, ": "), 0)], '/'); i >= 0 {
					s = s[i+1:]
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// unwrapAll splits a joined error into its errors.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unwrapAll(e)...)
		}
		return out
	}
	return []error{err}
}

// TestRuleSetHeaders checks that a rule set from a source, which cannot
// hold [server], gets the local config's headers: on its Set, and merged
// into its rules' own.
func TestRuleSetHeaders(t *testing.T) {
	file := writeFiles(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nheaders = { Cache-Control = \"max-age=60\" }\n"})
	server := []matcher.Header{{Name: "Cache-Control", Value: "no-store"}, {Name: "X-Frame-Options", Value: "DENY"}}
	cfg, err := config.LoadRuleSet(filepath.Dir(file), filepath.Base(file), server...)
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	if !cfg.Set.Lookup(nil, []byte("/a"), nil, &m) {
		t.Fatal("no match for /a")
	}
	got := []string{cfg.Set.Headers(), m.Headers()}
	want := []string{"Cache-Control: no-store\r\nX-Frame-Options: DENY\r\n", "Cache-Control: max-age=60\r\nX-Frame-Options: DENY\r\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}
