package matcher

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// locationCases are requests and the Locations they get (or "" for no
// match) from encodingRules.
var encodingRules = []Rule{
	// $path echoes the client's bytes (nginx's $request_uri), $uri the
	// decoded path, encoded again (nginx's $uri).
	{Kind: Regex, From: `^/raw/(.*)$`, To: "https://new.example${path}", Status: 301},
	{Kind: Regex, From: `^/dec/(.*)$`, To: "/new$uri", Status: 301},
	// A query goes before the fragment.
	{Kind: Exact, From: "/frag", To: "/b#frag", Status: 301},
	{Kind: Exact, From: "/frag-q", To: "/b?y=2#frag", Status: 301},
	{Kind: Exact, From: "/frag-drop", To: "/b?y=2#frag", Status: 301, QueryString: QueryDrop},
	{Kind: Exact, From: "/frag-cond", To: "/c#frag", Status: 301, Query: []QueryCond{{Name: "x", Value: "*"}}},
	{Kind: Regex, From: `^/frag-re$`, To: "/b#frag", Status: 301},
	{Kind: Regex, From: `^/frag-re/(\d+)$`, To: "/b/$1#sec", Status: 301},
	// Targets are sent as valid URI references.
	{Kind: Exact, From: "/embed", To: "/a <embed>", Status: 301},
	{Kind: Exact, From: "/utf8", To: "/café", Status: 301},
	{Kind: Exact, From: "/pct", To: "/x%2Fy%zz", Status: 301},
	{Kind: Exact, From: "/abs", To: "https://ex.example/ü?q={x}|`^\\\"", Status: 301},
	{Kind: Regex, From: `^/re-utf8/(\d+)$`, To: "/ü/$1", Status: 301},
	// The decoded path, as nginx's map $uri and MDN compare it.
	{Kind: Exact, From: "/docs/HTML:Element:small", To: "/en-US/docs/Web/HTML/Element/small", Status: 301, DecodedPath: true},
	{Kind: Exact, From: "/faq?", To: "/faq", Status: 301, DecodedPath: true},
	{Kind: Exact, From: "/a#b", To: "/ab", Status: 301, DecodedPath: true},
	{Kind: Exact, From: "/Docs/html:element:SMALL/", To: "/ci", Status: 301, DecodedPath: true, CaseInsensitive: true, TrailingSlash: true},
	{Kind: Exact, From: "/glossary/bézier_curve", To: "/fr/docs/Glossaire/Courbe_de_Bézier", Status: 301, DecodedPath: true, CaseInsensitive: true, UnicodeFold: true},
	{Kind: Exact, From: "/ascii/bézier", To: "/ascii", Status: 301, DecodedPath: true, CaseInsensitive: true},
	{Kind: Exact, From: "/css/%3Ccolor%3E", To: "/css/color_value", Status: 301, DecodedPath: true, CaseInsensitive: true},
}

var locationCases = []struct{ path, query, want string }{
	{"/raw/caf%c3%a9/x", "", "https://new.example/raw/caf%c3%a9/x"},
	{"/raw/%7Euser", "a=1", "https://new.example/raw/%7Euser?a=1"},
	{"/dec/HTML%3AElement%3asmall", "", "/new/dec/HTML:Element:small"},
	{"/dec/caf%c3%a9/%3F%23%25%20", "", "/new/dec/caf%C3%A9/%3F%23%25%20"},
	{"/frag", "x=1", "/b?x=1#frag"},
	{"/frag", "", "/b#frag"},
	{"/frag-q", "x=1", "/b?y=2&x=1#frag"},
	{"/frag-drop", "x=1", "/b#frag"},
	{"/frag-cond", "x=1", "/c?x=1#frag"},
	{"/frag-re", "x=1", "/b?x=1#frag"},
	{"/frag-re/7", "x=1", "/b/7?x=1#sec"},
	{"/embed", "", "/a%20%3Cembed%3E"},
	{"/utf8", "", "/caf%C3%A9"},
	{"/pct", "", "/x%2Fy%25zz"},
	{"/abs", "", "https://ex.example/%C3%BC?q=%7Bx%7D%7C%60%5E%5C%22"},
	{"/re-utf8/5", "", "/%C3%BC/5"},
	{"/docs/HTML%3AElement%3Asmall", "", "/en-US/docs/Web/HTML/Element/small"},
	{"//docs/./HTML%3aElement%3asmall", "", "/en-US/docs/Web/HTML/Element/small"},
	{"/docs/HTML:Element:small", "", "/en-US/docs/Web/HTML/Element/small"},
	{"/faq%3F", "", "/faq"},
	{"/faq", "", ""},
	{"/a%23b", "", "/ab"},
	{"/docs/HTML%3AElement%3ASMALL", "", "/ci"},
	{"/DOCS/Html:Element:Small/", "", "/ci"},
	{"/Glossary/B%C3%89ZIER_CURVE", "", "/fr/docs/Glossaire/Courbe_de_B%C3%A9zier"},
	{"/glossary/b%c3%a9zier_curve", "", "/fr/docs/Glossaire/Courbe_de_B%C3%A9zier"},
	// ASCII folding leaves É and é apart, as nginx's map does.
	{"/ASCII/B%C3%89ZIER", "", ""},
	{"/ASCII/B%C3%A9ZIER", "", "/ascii"},
	{"/CSS/%3ccolor%3e", "", "/css/color_value"},
}

// TestLocationEncoding checks the Location of each case: echoed request
// bytes, decoded matching, case folding, fragments and encoded targets.
func TestLocationEncoding(t *testing.T) {
	s, err := Compile(encodingRules)
	if err != nil {
		t.Fatal(err)
	}
	var m Match
	for _, c := range locationCases {
		var q []byte
		if c.query != "" {
			q = []byte(c.query)
		}
		got := ""
		if s.Lookup([]byte("example.com"), []byte(c.path), q, &m) {
			got = string(m.AppendLocation(nil, q))
		}
		if got != c.want {
			t.Errorf("%s?%s: Location %q, want %q", c.path, c.query, got, c.want)
		}
	}
}

// TestFormErrors checks that the forms a rule kind cannot have are refused.
func TestFormErrors(t *testing.T) {
	for _, c := range []struct {
		r    Rule
		want string
	}{
		{Rule{Kind: Exact, From: "/a", To: "/b", Status: 301, CaseInsensitive: true, UnicodeFold: true}, `path = "decoded"`},
		{Rule{Kind: Prefix, From: "/a", To: "/b", Status: 301, DecodedPath: true}, "for exact rules"},
		{Rule{Kind: Regex, From: "^/a", To: "/b", Status: 301, DecodedPath: true}, "for exact rules"},
		{Rule{Kind: Exact, From: "/a", To: "/b", Status: 301, DecodedPath: true, RequestURI: true}, "choose one"},
		{Rule{Kind: Exact, From: "/a?", To: "/b", Status: 301}, "holds '?' or '#'"},
	} {
		_, err := Compile([]Rule{c.r})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.r, err, c.want)
		}
	}
}

func TestDecodePath(t *testing.T) {
	for in, want := range map[string]string{
		"/docs/HTML%3AElement%3Asmall": "/docs/HTML:Element:small",
		"/a%2Fb":                       "/a/b",
		"/a%2fb/../c":                  "/a/c",
		"/a//b///c":                    "/a/b/c",
		"/a/./b/../c":                  "/a/c",
		"/a%2E%2E/b":                   "/a../b",
		"/a/%2E%2E/b":                  "/b",
		"/x%3Fy%23z":                   "/x?y#z",
		"/%25":                         "/%",
		"/%zz":                         "/%zz",
		"/a%":                          "/a%",
		"/A%2F..%2Fb":                  "/b",
		"/a/b/..":                      "/a/",
		"/a/b/.":                       "/a/b/",
		"/..":                          "/",
		"/../a":                        "/a",
		"/.hidden/..x":                 "/.hidden/..x",
		"/plain":                       "/plain",
	} {
		if got := string(decodePath(nil, []byte(in))); got != want {
			t.Errorf("decodePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEncodeTarget(t *testing.T) {
	got := map[string]string{}
	want := map[string]string{
		"/a b":                     "/a%20b",
		"/café":                    "/caf%C3%A9",
		"/%41%zz%":                 "/%41%25zz%25",
		"https://ex.example/<a>#f": "https://ex.example/%3Ca%3E#f",
		"/ok?x=1#y":                "/ok?x=1#y",
	}
	for in := range want {
		got[in] = EncodeTarget(in)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("EncodeTarget (-want +got):\n%s", diff)
	}
}

// TestPackedForms checks the packed tables of loose exact rules: they
// report rules as written, find duplicates in any spelling of a key, and
// leave rules with conditions of the same key tried first.
func TestPackedForms(t *testing.T) {
	for _, pair := range [][2]Rule{
		{{Kind: Exact, From: "/A", To: "/x", Status: 301, CaseInsensitive: true}, {Kind: Exact, From: "/a", To: "/y", Status: 301, CaseInsensitive: true}},
		{{Kind: Exact, From: "/a:b", To: "/x", Status: 301, DecodedPath: true}, {Kind: Exact, From: "/a%3Ab", To: "/y", Status: 301, DecodedPath: true}},
		{{Kind: Exact, From: "/É", To: "/x", Status: 301, DecodedPath: true, CaseInsensitive: true, UnicodeFold: true}, {Kind: Exact, From: "/%C3%A9", To: "/y", Status: 301, DecodedPath: true, CaseInsensitive: true, UnicodeFold: true}},
		{{Kind: Exact, From: "/s/", To: "/x", Status: 301, TrailingSlash: true}, {Kind: Exact, From: "/s", To: "/y", Status: 301, TrailingSlash: true, Headers: []Header{{Name: "X-A", Value: "1"}}}},
	} {
		if _, err := Compile(pair[:]); err == nil || !strings.Contains(err.Error(), "duplicate") {
			t.Errorf("%q and %q: error %v, want a duplicate", pair[0].From, pair[1].From, err)
		}
	}
	s, err := Compile([]Rule{
		{Kind: Exact, From: "/Case", To: "/plain", Status: 301, CaseInsensitive: true, File: "m", Line: 1},
		{Kind: Exact, From: "/CASE", To: "/cond", Status: 302, CaseInsensitive: true, Query: []QueryCond{{Name: "a", Value: "1"}}, File: "m", Line: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	var m Match
	for q, want := range map[string]string{"": "/plain", "a=1": "/cond?a=1"} {
		if !s.Lookup(nil, []byte("/case"), []byte(q), &m) {
			t.Fatalf("?%s: no match", q)
		}
		if got := string(m.AppendLocation(nil, []byte(q))); got != want {
			t.Errorf("?%s: Location %q, want %q", q, got, want)
		}
	}
	want := []Rule{
		{Kind: Exact, From: "/Case", To: "/plain", Status: 301, CaseInsensitive: true, File: "m", Line: 1},
		{Kind: Exact, From: "/CASE", To: "/cond", Status: 302, CaseInsensitive: true, Query: []QueryCond{{Name: "a", Value: "1"}}, File: "m", Line: 2},
	}
	if diff := cmp.Diff(want, s.Rules()); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}
