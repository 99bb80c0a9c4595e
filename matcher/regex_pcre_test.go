package matcher

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pcreRules mix RE2 regexes (lowered or not) with regexes RE2 refuses,
// which run on package pcre; file order decides between them.
var pcreRules = []Rule{
	{Kind: Regex, From: `^/docs/(?!(v\d|latest)/)(.+)`, To: "/docs/v2/$2"},
	{Kind: Regex, From: `^/docs/(.*)$`, To: "/re2/$1"},
	{Kind: Regex, From: `^(.*)/usage(?=/|$)/?$`, To: "$1/usage/overview.html"},
	{Kind: Regex, From: `^/old$`, To: "/new"}, // lowered to a table
	{Kind: Regex, From: `^/(?<a>\w+)/\k<a>$`, To: "/twice/${a}"},
	{Kind: Regex, From: `^/old(?<!\.php)$`, To: "/never"}, // /old is answered by the earlier rule
	{Kind: Regex, From: `^/p/(?>\d+)(?!\.)`, To: "/p-atomic"},
	{Kind: Regex, From: `^/CASE/(?=x)(\w+)`, To: "/case/$1", CaseInsensitive: true},
	{Kind: Regex, From: `/x\.html$`, To: "/re2-x"},
	{Kind: Regex, From: `^/q(?=/)`, To: "/q-cond", Query: []QueryCond{{Name: "a", Value: "1"}}},
}

func compilePCRETest(t *testing.T) *Set {
	t.Helper()
	rules := append([]Rule(nil), pcreRules...)
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "t", i+1
	}
	s, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPCRERules checks that a regex RE2 refuses is answered by package
// pcre through Set.Lookup, in file order with the others, with its
// groups in the Location, by the backtracker one by one and by the one
// pass past the work budget alike.
func TestPCRERules(t *testing.T) {
	s := compilePCRETest(t)
	for _, c := range []struct{ path, query, want string }{
		{"/docs/guide/intro", "", "/docs/v2/guide/intro"},
		{"/docs/v1/intro", "", "/re2/v1/intro"},
		{"/docs/latest/x", "", "/re2/latest/x"},
		{"/a/b/usage/", "", "/a/b/usage/overview.html"},
		{"/a/b/usagex", "", ""},
		{"/old", "", "/new"},
		{"/ab/ab", "", "/twice/ab"},
		{"/ab/ac", "", ""},
		{"/p/123x", "", "/p-atomic"},
		{"/p/123.", "", ""},
		{"/case/xyz", "", "/case/xyz"},
		{"/Case/xyz", "", "/case/xyz"},
		{"/Case/yz", "", ""},
		{"/a/x.html", "", "/re2-x"},
		{"/q/", "a=1", "/q-cond?a=1"},
		{"/q/", "a=2", ""},
	} {
		for _, budget := range []int{0, -1} { // one by one; the one pass
			m := Match{budget: budget}
			got := ""
			var q []byte
			if c.query != "" {
				q = []byte(c.query)
			}
			if s.Lookup(nil, []byte(c.path), q, &m) {
				got = string(m.AppendLocation(nil, q))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("budget %d: Lookup(%q?%s) (-want +got):\n%s", budget, c.path, c.query, diff)
			}
			if m.PCREAbandoned() {
				t.Errorf("Lookup(%q): PCRE abandoned", c.path)
			}
		}
	}
}

// TestPCREBudget checks that a regex whose backtracking explodes on a
// crafted path is abandoned past pcreBudget, answered as not matching
// (the next rule answers) and reported.
func TestPCREBudget(t *testing.T) {
	rules := []Rule{
		{Kind: Regex, From: `^/(a|aa)+(?!b)c$`, To: "/exploded", Status: 301, File: "t", Line: 1},
		{Kind: Regex, From: `^/a`, To: "/next", Status: 301, File: "t", Line: 2},
	}
	s, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var m Match
	path := []byte("/" + strings.Repeat("a", 60) + "c")
	if !s.Lookup(nil, path, nil, &m) || string(m.AppendLocation(nil, nil)) != "/exploded" {
		t.Fatalf("a path that matches quickly: %q", m.AppendLocation(nil, nil))
	}
	path = []byte("/" + strings.Repeat("a", 60) + "d")
	if !s.Lookup(nil, path, nil, &m) || string(m.AppendLocation(nil, nil)) != "/next" {
		t.Errorf("crafted path: got %q, want /next", m.AppendLocation(nil, nil))
	}
	if !m.PCREAbandoned() {
		t.Error("crafted path: PCREAbandoned() = false")
	}
	if m.pcreLeft > 0 {
		t.Errorf("crafted path: %d steps left of the budget", m.pcreLeft)
	}
}

// TestPCRECompileError checks that a regex neither RE2 nor PCRE accepts
// names both errors.
func TestPCRECompileError(t *testing.T) {
	_, err := Compile([]Rule{{Kind: Regex, From: `^/(?<=a+)b`, To: "/b", Status: 301, File: "t", Line: 3}})
	want := "t:3: from: cannot compile regex \"^/(?<=a+)b\": pcre: lookbehind assertion is not fixed length at offset 2 (as RE2: invalid named capture)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Compile error = %v, want %q", err, want)
	}
}

// TestPCRELimits checks that a PCRE regex is held to the limits RE2
// ones are: 2,000 instructions each, and its instructions counted in
// the rule set's max_regex_instructions.
func TestPCRELimits(t *testing.T) {
	_, err := Compile([]Rule{{Kind: Regex, From: `^/(?=x)(ab){1000}`, To: "/b", Status: 301, File: "t", Line: 1}})
	if want := "more than the 2000 allowed"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Compile error = %v, want it to contain %q", err, want)
	}
	b := NewBuilder(Limits{ProgramInsts: 500})
	var last error
	for i := 0; i < 10 && last == nil; i++ {
		last = b.Add(&Rule{Kind: Regex, From: fmt.Sprintf(`^/%d(?=x)(ab){20}`, i), To: "/b", Status: 301, File: "t", Line: i + 1})
	}
	if want := "compile to more than 500 instructions in all"; last == nil || !strings.Contains(last.Error(), want) {
		t.Errorf("Add error = %v, want it to contain %q", last, want)
	}
}
