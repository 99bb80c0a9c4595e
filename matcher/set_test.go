package matcher_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// testRules exercises every kind and the precedence between them.
var testRules = []matcher.Rule{
	{Kind: matcher.Exact, From: "/old", To: "https://example.com/new", Status: 301},
	{Kind: matcher.Exact, From: "/q", To: "https://example.com/q?a=1", Status: 302},
	{Kind: matcher.Exact, From: "/docs/exact", To: "https://example.com/exact-wins", Status: 301},
	{Kind: matcher.Prefix, From: "/docs/", To: "https://docs.example.com/", Status: 302},
	{Kind: matcher.Prefix, From: "/docs/api/", To: "https://api.example.com/", Status: 307},
	{Kind: matcher.Prefix, From: "/d", To: "https://d.example.com", Status: 301},
	{Kind: matcher.Regex, From: `^/blog/(\d+)/(.*)$`, To: "https://example.com/posts/$1/$2", Status: 308},
	{Kind: matcher.Regex, From: `^/blog/(?P<year>\d{4})/`, To: "https://example.com/year/${year}", Status: 301},
	{Kind: matcher.Regex, From: `\.php$`, To: "https://example.com/no-php", Status: 301},
	{Kind: matcher.Regex, From: `^/x/(a)?(b)`, To: "/x?a=$1&b=$2", Status: 303},
	{Kind: matcher.Regex, From: `(?i)^/CASE/(.*)`, To: "/case/$1", Status: 301},
	{Kind: matcher.Exact, From: "/only-here", Host: "shop.example.com", To: "https://shop.example.com/moved", Status: 307},
	{Kind: matcher.Exact, From: "/only-here", To: "https://example.com/everywhere-else", Status: 301},
	{Kind: matcher.Prefix, From: "/", Host: "old.example.com", To: "https://new.example.com/", Status: 301},
}

func compileTest(t *testing.T) *matcher.Set {
	t.Helper()
	return compileLines(t, "test.toml", testRules)
}

func TestLookup(t *testing.T) {
	s := compileTest(t)
	type result struct {
		Line     int
		Status   int
		Location string
	}
	tests := []struct {
		host, path, query string
		want              *result
	}{
		{"", "/old", "", &result{1, 301, "https://example.com/new"}},
		{"", "/old", "utm=1&b=2", &result{1, 301, "https://example.com/new?utm=1&b=2"}},
		{"", "/q", "b=2", &result{2, 302, "https://example.com/q?a=1&b=2"}},
		{"", "/old/", "", nil},
		{"", "/Old", "", nil},
		{"", "/docs/exact", "", &result{3, 301, "https://example.com/exact-wins"}},
		{"", "/docs/guide/intro", "", &result{4, 302, "https://docs.example.com/guide/intro"}},
		{"", "/docs/api/v1", "x=1", &result{5, 307, "https://api.example.com/v1?x=1"}},
		{"", "/docs/", "", &result{4, 302, "https://docs.example.com/"}},
		{"", "/docsx", "", &result{6, 301, "https://d.example.com/ocsx"}},
		{"", "/blog/2024/hello", "", &result{7, 308, "https://example.com/posts/2024/hello"}},
		{"", "/blog/2024/", "", &result{7, 308, "https://example.com/posts/2024/"}},
		{"", "/blog/abcd/", "", nil},
		{"", "/index.php", "", &result{9, 301, "https://example.com/no-php"}},
		{"", "/blog/1/index.php", "", &result{7, 308, "https://example.com/posts/1/index.php"}},
		{"", "/x/b", "", &result{10, 303, "/x?a=&b=b"}},
		{"", "/x/ab", "q=1", &result{10, 303, "/x?a=a&b=b&q=1"}},
		{"", "/case/Foo", "", &result{11, 301, "/case/Foo"}},
		{"", "/CaSe/Foo", "", &result{11, 301, "/case/Foo"}},
		{"shop.example.com", "/only-here", "", &result{12, 307, "https://shop.example.com/moved"}},
		{"SHOP.example.COM:8080", "/only-here", "", &result{12, 307, "https://shop.example.com/moved"}},
		{"shop.example.com.", "/only-here", "", &result{12, 307, "https://shop.example.com/moved"}},
		{"other.example.com", "/only-here", "", &result{13, 301, "https://example.com/everywhere-else"}},
		{"", "/only-here", "", &result{13, 301, "https://example.com/everywhere-else"}},
		// A host's rules are all tried before host-less ones.
		{"old.example.com", "/old", "", &result{14, 301, "https://new.example.com/old"}},
		{"old.example.com", "/zzz", "", &result{14, 301, "https://new.example.com/zzz"}},
		{"", "/nothing", "", nil},
		{"", "/", "", nil},
		{strings.Repeat("h", 300), "/old", "", &result{1, 301, "https://example.com/new"}},
	}
	var m matcher.Match
	for _, tt := range tests {
		t.Run(tt.host+tt.path+"?"+tt.query, func(t *testing.T) {
			var got *result
			if s.Lookup([]byte(tt.host), []byte(tt.path), nil, &m) {
				got = &result{m.Rule().Line, m.Status(), string(m.AppendLocation(nil, []byte(tt.query)))}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lookup(%q, %q) mismatch (-want +got):\n%s", tt.host, tt.path, diff)
			}
		})
	}
}

// TestRegexFileOrder checks that when several regexes match, the first in
// file order wins, whichever literal prefix each is indexed under.
func TestRegexFileOrder(t *testing.T) {
	rules := []matcher.Rule{
		{Kind: matcher.Regex, From: `^/a/b/c`, To: "/1", Status: 301},
		{Kind: matcher.Regex, From: `^/a/(.*)`, To: "/2/$1", Status: 301},
		{Kind: matcher.Regex, From: `^/a/b/(.*)`, To: "/3/$1", Status: 301},
		{Kind: matcher.Regex, From: `b`, To: "/4", Status: 301},
	}
	s, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, want string }{
		{"/a/b/c", "/1"},
		{"/a/b/d", "/2/b/d"},
		{"/a/x", "/2/x"},
		{"/zb", "/4"},
		{"/a", ""},
	}
	var m matcher.Match
	for _, tt := range tests {
		got := ""
		if s.Lookup(nil, []byte(tt.path), nil, &m) {
			got = string(m.AppendLocation(nil, nil))
		}
		if got != tt.want {
			t.Errorf("Lookup(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name  string
		rules []matcher.Rule
		want  string
	}{
		{"status", []matcher.Rule{{From: "/a", To: "/b", Status: 200}}, "t:1: status: 200 is not a redirect status"},
		{"empty to", []matcher.Rule{{From: "/a", Status: 301}}, "t:1: to: empty"},
		{"control in to", []matcher.Rule{{From: "/a", To: "/b\r\nSet-Cookie: x", Status: 301}}, "t:1: to: "},
		{"relative from", []matcher.Rule{{From: "a", To: "/b", Status: 301}}, "t:1: from: \"a\" must be a path"},
		{"query in from", []matcher.Rule{{From: "/a?x=1", To: "/b", Status: 301}}, "holds '?'"},
		{"bad regex", []matcher.Rule{{Kind: matcher.Regex, From: "^/(a", To: "/b", Status: 301}}, "t:1: from: cannot compile regex"},
		{"huge regex", []matcher.Rule{{Kind: matcher.Regex, From: "^/[a-z]{1000}[a-z]{1000}[a-z]{500}", To: "/b", Status: 301}}, "more than the 2000 allowed"},
		{"missing group", []matcher.Rule{{Kind: matcher.Regex, From: "^/(a)", To: "/$2", Status: 301}}, "refers to group \"2\""},
		{"missing name", []matcher.Rule{{Kind: matcher.Regex, From: "^/(?P<x>a)", To: "/${y}", Status: 301}}, "refers to group \"y\""},
		{"lone dollar", []matcher.Rule{{Kind: matcher.Regex, From: "^/a", To: "/$", Status: 301}}, "write $$ for a literal $"},
		{"duplicate exact", []matcher.Rule{{From: "/a", To: "/b", Status: 301}, {From: "/a", To: "/c", Status: 301}},
			"t:2: from: duplicate exact rule for \"/a\" (first defined at t:1)"},
		{"duplicate prefix", []matcher.Rule{{Kind: matcher.Prefix, From: "/a", To: "/b", Status: 301}, {Kind: matcher.Prefix, From: "/a", To: "/c", Status: 301}},
			"t:2: from: duplicate prefix rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.rules {
				tt.rules[i].File, tt.rules[i].Line = "t", i+1
			}
			_, err := matcher.Compile(tt.rules)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Compile error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestSameExactOnTwoHosts checks that an exact path may be configured once
// per host without counting as a duplicate.
func TestSameExactOnTwoHosts(t *testing.T) {
	_, err := matcher.Compile([]matcher.Rule{
		{From: "/a", To: "/1", Status: 301},
		{From: "/a", Host: "x.example", To: "/2", Status: 301},
		{From: "/a", Host: "y.example", To: "/3", Status: 301},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDollarLiteral(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{Kind: matcher.Regex, From: "^/r/(.*)", To: "/cost$$/$1", Status: 301},
		{Kind: matcher.Exact, From: "/e", To: "/keep$1", Status: 301},
	})
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	for path, want := range map[string]string{"/r/x": "/cost$/x", "/e": "/keep$1"} {
		if !s.Lookup(nil, []byte(path), nil, &m) {
			t.Fatalf("%s: no match", path)
		}
		if got := string(m.AppendLocation(nil, nil)); got != want {
			t.Errorf("%s: Location %q, want %q", path, got, want)
		}
	}
}

// TestPass checks that a no-redirect entry (an nginx map value of "")
// decides its requests as misses, ahead of later rules, and says so.
func TestPass(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{Kind: matcher.Exact, From: "/keep", Pass: true, File: "m.map", Line: 1},
		{Kind: matcher.Regex, From: `^/keep-re`, Pass: true, File: "m.map", Line: 2},
		{Kind: matcher.Regex, From: `^/keep`, To: "/moved", Status: 301, File: "m.map", Line: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path       string
		found      bool
		passedLine int
	}{
		{"/keep", false, 1},
		{"/keep-re/x", false, 2},
		{"/keepx", true, 0},
		{"/other", false, 0},
	}
	for _, tc := range tests {
		var m matcher.Match
		found := s.Lookup(nil, []byte(tc.path), nil, &m)
		line := 0
		if p := m.Passed(); p != nil {
			line = p.Line
		}
		if found != tc.found || line != tc.passedLine {
			t.Errorf("%s: found %v, passed at line %d; want %v, %d", tc.path, found, line, tc.found, tc.passedLine)
		}
	}
	want := []matcher.Rule{
		{Kind: matcher.Exact, From: "/keep", Pass: true, File: "m.map", Line: 1},
		{Kind: matcher.Regex, From: `^/keep-re`, Pass: true, File: "m.map", Line: 2},
		{Kind: matcher.Regex, From: `^/keep`, To: "/moved", Status: 301, File: "m.map", Line: 3},
	}
	if diff := cmp.Diff(want, s.Rules()); diff != "" {
		t.Errorf("Rules() (-want +got):\n%s", diff)
	}
	if _, err := matcher.Compile([]matcher.Rule{{From: "/a", To: "/b", Pass: true}}); err == nil {
		t.Error("a no-redirect entry with a target compiled")
	}
}

// TestUnsentBytes checks that configured paths holding bytes a client
// never sends as they are (space, UTF-8) match the encoded request.
func TestUnsentBytes(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/old essay", To: "/essay", Status: 301},
		{From: "/café", To: "/cafe", Status: 301},
		{Kind: matcher.Prefix, From: "/docs <old>/", To: "/docs/", Status: 301},
	})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/old%20essay": "/essay", "/caf%C3%A9": "/cafe", "/caf%c3%a9": "/cafe",
		"/docs%20%3Cold%3E/x": "/docs/x", "/old essay": ""} {
		var m matcher.Match
		got := ""
		if s.Lookup(nil, []byte(path), nil, &m) {
			got = string(m.AppendLocation(nil, nil))
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", path, got, want)
		}
	}
}

// TestRegexTierOrder checks that the regex tier answers the first matching
// rule in file order whether it is lowered to a table or run as a regex,
// and that RequestURI rules see the query as sent.
func TestRegexTierOrder(t *testing.T) {
	var rs []matcher.Rule
	add := func(r matcher.Rule) {
		r.Status, r.File, r.Line = 301, "m.map", len(rs)+1
		if !strings.HasPrefix(r.From, "/") {
			r.Kind = matcher.Regex
		}
		rs = append(rs, r)
	}
	add(matcher.Rule{From: `^/[a-z]+/first$`, To: "/1"}) // 1: real, gram-filtered
	add(matcher.Rule{From: `^/a/first$`, To: "/2"})      // 2: lowered, after 1
	add(matcher.Rule{From: `^/b.*$`, To: "/3"})          // 3: lowered prefix
	add(matcher.Rule{From: `^/b(\d+)$`, To: "/4/$1"})    // 4: real, after 3
	add(matcher.Rule{From: `^/c(\d+)$`, To: "/5/$1"})    // 5: real
	add(matcher.Rule{From: `(?i)^/C1/?$`, To: "/6"})     // 6: lowered, after 5
	add(matcher.Rule{From: `^/u\?id=(.*)$`, To: "/7/$1", RequestURI: true})
	add(matcher.Rule{From: `^/u$`, To: "/8", RequestURI: true}) // no query only
	add(matcher.Rule{From: `^/u`, To: "/9"})                    // path only
	add(matcher.Rule{From: "/e?a=1", To: "/10", RequestURI: true, CaseInsensitive: true})
	add(matcher.Rule{From: `^/p%20q$`, To: "/11", RequestURI: true}) // raw, not decoded
	s, err := matcher.Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ target, want string }{
		{"/a/first", "1 /1"},
		{"/b12", "3 /3"},
		{"/c1", "5 /5/1"},
		{"/C1/", "6 /6"},
		{"/u?id=42", "7 /7/42"},
		{"/u", "8 /8"},
		{"/u?x=1", "9 /9"},
		{"/E?A=1", "10 /10"},
		{"/p%20q", "11 /11"},
		{"/zz", ""},
	}
	for _, tc := range tests {
		p, q, hasQ := strings.Cut(tc.target, "?")
		var query []byte
		if hasQ {
			query = []byte(q)
		}
		var m matcher.Match
		got := ""
		if s.Lookup(nil, []byte(p), query, &m) {
			got = fmt.Sprintf("%d %s", m.Rule().Line, m.AppendLocation(nil, nil))
			got = strings.TrimSuffix(got, "?"+q)
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.target, got, tc.want)
		}
	}
	// Lowered rules are stored apart but listed in file order, as written.
	if diff := cmp.Diff(rs, s.Rules()); diff != "" {
		t.Errorf("Rules() (-want +got):\n%s", diff)
	}
	if got, want := s.Counts(), (matcher.Counts{Exact: 1, Regex: 10}); got != want {
		t.Errorf("Counts() = %+v, want %+v", got, want)
	}
}

// TestLongPathRegex checks a path too long for the backtracker's bounded
// bitmap: it is matched by package regexp, with the same answer.
func TestLongPathRegex(t *testing.T) {
	expr := `^/x/([a-z]+)(\d{1,3}|[A-Z]{2,40})?(.*)end$`
	s, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Regex, From: expr, To: "/y/$1/$3", Status: 301}})
	if err != nil {
		t.Fatal(err)
	}
	path := "/x/" + strings.Repeat("ab", 1<<16) + "9" + strings.Repeat("-", 1<<15) + "end"
	var m matcher.Match
	if !s.Lookup(nil, []byte(path), nil, &m) {
		t.Fatal("no match")
	}
	sub := regexp.MustCompile(expr).FindStringSubmatch(path)
	if got, want := string(m.AppendLocation(nil, nil)), "/y/"+sub[1]+"/"+sub[3]; got != want {
		t.Errorf("Location of %d bytes, want %d", len(got), len(want))
	}
}
