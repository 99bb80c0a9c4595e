package netlify

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config/importer"
)

// TestParse checks how lines are read: fields, query parameters, status
// and force, conditions, hosts, comments; and that a line that cannot be
// read is noted with its line, not dropped.
func TestParse(t *testing.T) {
	src := "# comment\n\n" +
		"/a   /b\n" +
		"  /c /d 302!   # trailing comment\n" +
		"/store id=:id sort=asc /blog/:id 301\n" +
		"https://Old.Example.com/* https://new.example.com/:splat 301!\n" +
		"/ /fr 302 Country=fr,be Language=fr\r\n" +
		"/only-from\n" +
		"relative /x\n" +
		"/x /y 301 Bogus=1\n" +
		"/e /f 404\n"
	got, notes := Parse("_redirects", []byte(src))
	want := []Redirect{
		{Line: 3, Text: "/a /b", From: "/a", To: "/b"},
		{Line: 4, Text: "/c /d 302!", From: "/c", To: "/d", Status: 302, Force: true},
		{Line: 5, Text: "/store id=:id sort=asc /blog/:id 301", From: "/store", To: "/blog/:id", Status: 301,
			Query: []Param{{"id", ":id"}, {"sort", "asc"}}},
		{Line: 6, Text: "https://Old.Example.com/* https://new.example.com/:splat 301!", Host: "old.example.com", From: "/*",
			To: "https://new.example.com/:splat", Status: 301, Force: true},
		{Line: 7, Text: "/ /fr 302 Country=fr,be Language=fr", From: "/", To: "/fr", Status: 302, Conditions: []string{"Country=fr,be", "Language=fr"}},
		{Line: 11, Text: "/e /f 404", From: "/e", To: "/f", Status: 404},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
	wantNotes := []importer.Note{
		{File: "_redirects", Line: 8, Kind: importer.LeftOut, Msg: "/only-from: no target after the path; a rule is `from to [status][!] [conditions]`; left out"},
		{File: "_redirects", Line: 9, Kind: importer.LeftOut, Msg: `relative /x: the path "relative" does not start with /; left out`},
		{File: "_redirects", Line: 10, Kind: importer.LeftOut, Msg: `/x /y 301 Bogus=1: "Bogus=1" is not a status or a condition (Country=, Language=, Role=, Cookie=); left out`},
	}
	if d := cmp.Diff(wantNotes, notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
}

// TestPatternMatchesRegex checks that the regex written for a pattern
// answers as Netlify's reading of it (match), on paths around each
// pattern: the translation and the order check's model agree.
func TestPatternMatchesRegex(t *testing.T) {
	patterns := []string{"/", "/*", "/a", "/a/", "/a/*", "/a/:b", "/a/:b/c/*", "/:x/:y", "/news/:year/:month/:slug", "/a.b/*"}
	paths := []string{"/", "//", "/a", "/a/", "/ab", "/a/b", "/a/b/", "/a/b/c", "/a/b/c/", "/a/b/c/d/e", "/a//c", "/x/y", "/x/y/z",
		"/news/2020/01/hello", "/news/2020/01/hello/", "/news/2020//hello", "/a.b", "/aXb/c", "/a.b/c"}
	for _, pat := range patterns {
		p, err := parsePattern(pat)
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		re := mustRegexp(t, "^"+p.regex()+"$")
		for _, path := range paths {
			if m, r := p.match(path), re.MatchString(path); m != r {
				t.Errorf("%s on %s: model %v, regex %s %v", pat, path, m, re, r)
			}
			if p.match(path) && !strings.HasPrefix(path, p.prefix()) {
				t.Errorf("%s matches %s, which does not start with its prefix %q", pat, path, p.prefix())
			}
		}
		for _, s := range p.samples() {
			if !p.match(s) {
				t.Errorf("%s: its sample %s does not match", pat, s)
			}
		}
	}
}
