//go:build !race

package matcher_test

import (
	"strings"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// TestLookupAllocs checks the hot-path contract: a lookup, the Location it
// builds, its status, hit count and source (for the access log) allocate
// nothing once the Match has warmed up. The exact rules are in a packed
// table, the others on the ordinary path. (The race
// detector allocates, hence the build tag.)
func TestLookupAllocs(t *testing.T) {
	s, err := matcher.Compile(rules.Rules(rules.Reference))
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	buf := make([]byte, 0, 512)
	host := []byte("www.example.com")
	for _, path := range []string{rules.ExactHit, rules.PrefixHit, rules.LastRegex, rules.Miss} {
		p, q := []byte(path), []byte("a=1")
		allocs := testing.AllocsPerRun(100, func() {
			if s.Lookup(host, p, nil, &m) {
				buf = m.AppendLocation(buf[:0], q)
				m.Hit()
				_, _ = m.Status(), m.Source()
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup, want 0", path, allocs)
		}
	}
}

// TestQueryConditionAllocs checks that query conditions, compared while
// decoding the request's escapes, allocate nothing either.
func TestQueryConditionAllocs(t *testing.T) {
	conds := []matcher.QueryCond{{Name: "utm_source", Value: "spring sale"}, {Name: "ref", Value: matcher.AnyValue}}
	s, err := matcher.Compile([]matcher.Rule{
		{From: "/a", To: "/plain", Status: 301},
		{From: "/a", To: "/cond", Status: 301, Query: conds},
		{Kind: matcher.Prefix, From: "/p/", To: "/cond/", Status: 301, Query: conds},
		{Kind: matcher.Regex, From: `^/r/(\d+)`, To: "/cond/$1", Status: 301, Query: conds},
	})
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	buf := make([]byte, 0, 512)
	q := []byte("x=1&utm%5Fsource=spring+sale&ref=abc")
	for _, path := range []string{"/a", "/p/x", "/r/12"} {
		p := []byte(path)
		allocs := testing.AllocsPerRun(100, func() {
			if !s.Lookup(nil, p, q, &m) {
				t.Fatalf("%s: no match", path)
			}
			buf = m.AppendLocation(buf[:0], q)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup, want 0", path, allocs)
		}
	}
}

// TestRegexTierAllocs checks the regex tier of a hand-written map: lowered
// regexes (plain, (?i), wildcards, captures), regexes behind the gram
// filter, and rules compared with the request target, hit and miss.
func TestRegexTierAllocs(t *testing.T) {
	var rs []matcher.Rule
	for i, expr := range []string{`^/Definition.hs$`, `^/doc/2015.pdf.*$`, `(?i)^/Old/?$`, `^/blog/(.*)$`,
		`^/.*/foo\.html$`, `^/[0-9]+-old$`, `(?i)^/(\w+)/feed$`} {
		to := "/new"
		if i == 3 || i == 6 {
			to = "/new/$1"
		}
		rs = append(rs, matcher.Rule{Kind: matcher.Regex, From: expr, To: to, Status: 301})
	}
	rs = append(rs, matcher.Rule{Kind: matcher.Regex, From: `^/q\?a=(.*)$`, To: "/q/$1", Status: 301, RequestURI: true},
		matcher.Rule{Kind: matcher.Exact, From: "/e?x=1", To: "/e", Status: 301, RequestURI: true, CaseInsensitive: true})
	s, err := matcher.Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	buf := make([]byte, 0, 512)
	for _, target := range []string{"/Definition.hs", "/doc/2015-pdf/x", "/OLD/", "/blog/a/b", "/a/b/foo.html",
		"/12-old", "/News/feed", "/q?a=1", "/E?X=1", "/nothing/here?z=1"} {
		p, q, _ := strings.Cut(target, "?")
		path, query := []byte(p), []byte(q)
		if !strings.Contains(target, "?") {
			query = nil
		}
		allocs := testing.AllocsPerRun(100, func() {
			if s.Lookup(nil, path, query, &m) {
				buf = m.AppendLocation(buf[:0], query)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup, want 0", target, allocs)
		}
	}
}

// TestFallbackLookupAllocs checks that fallback rules cost nothing on the
// hot path: a lookup that hits one, reads its Fallback and builds its
// Location, and lookups of plain rules and misses beside them, allocate
// nothing.
func TestFallbackLookupAllocs(t *testing.T) {
	rs := rules.Rules(rules.Reference)
	rs = append(rs,
		matcher.Rule{From: "/fb/exact", To: "/x", Status: 301, Fallback: true},
		matcher.Rule{Kind: matcher.Regex, From: `^/fb/re/(\d+)$`, To: "/r/$1", Status: 301, Fallback: true, FallbackStatus: []int{404, 410}})
	s, err := matcher.Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	buf := make([]byte, 0, 512)
	host := []byte("www.example.com")
	for _, path := range []string{"/fb/exact", "/fb/re/12", rules.ExactHit, rules.LastRegex, rules.Miss} {
		p := []byte(path)
		allocs := testing.AllocsPerRun(100, func() {
			if s.Lookup(host, p, nil, &m) {
				if fb := m.Fallback(); fb != nil && !fb.Applies(404) {
					t.Fatal("404 does not apply")
				}
				buf = m.AppendLocation(buf[:0], nil)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup, want 0", path, allocs)
		}
	}
}

// TestConditionIndexAllocs checks that rules told apart by a query or
// cookie condition on one path, looked up through their index with the
// query and cookies split once, allocate nothing: short and long queries
// (past the hashed size and past MaxParams), escaped ones, short and long
// Cookie fields.
func TestConditionIndexAllocs(t *testing.T) {
	s := conditionSet(t, 200, 50)
	var m matcher.Match
	buf := make([]byte, 0, 512)
	many := strings.Repeat("x=1&", 20) + "id=7"
	for _, tc := range []struct{ path, query, cookie string }{
		{"/article.php", "id=12", ""},
		{"/article.php", "id=1%32&utm_source=a+b", ""},
		{"/article.php", "id=none", ""},
		{"/article.php", many, ""},
		{"/article.php", longQuery(), ""},
		{"/c", "", "a=1; v=42"},
		{"/c", "", longCookie()},
		{"/c", "", ""},
	} {
		path, query := []byte(tc.path), []byte(tc.query)
		m.Req = &fakeReq{fields: [][2]string{{"Cookie", tc.cookie}}}
		allocs := testing.AllocsPerRun(100, func() {
			if s.Lookup(nil, path, query, &m) {
				buf = m.AppendLocation(buf[:0], query)
				_ = m.Vary()
			}
		})
		if allocs != 0 {
			t.Errorf("%s?%.30s cookie %.30s: %v allocations per lookup, want 0", tc.path, tc.query, tc.cookie, allocs)
		}
	}
}

// TestLastAnsweredAllocs checks that stamping when a rule last answered
// keeps Hit at zero allocations in each store, on a new second (a store)
// and within one (a load alone).
func TestLastAnsweredAllocs(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{Kind: matcher.Exact, From: "/e", To: "/x", Status: 301},
		{Kind: matcher.Regex, From: "^/lit$", To: "/y", Status: 301},
		{Kind: matcher.Prefix, From: "/p/", To: "/z/", Status: 301},
	})
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	now := int64(1_800_000_000) * 1e9
	for _, path := range []string{"/e", "/lit", "/p/q"} {
		p := []byte(path)
		allocs := testing.AllocsPerRun(100, func() {
			now += 5e8 // half a second: every other hit stores
			m.Now = now
			if s.Lookup(nil, p, nil, &m) {
				m.Hit()
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per hit, want 0", path, allocs)
		}
	}
}

// TestCoversHostAllocs checks that the on-demand decision, asked on
// every TLS handshake for a name no certificate covers yet, allocates
// nothing: a scanner's stream of names must cost no garbage.
func TestCoversHostAllocs(t *testing.T) {
	s, err := matcher.Compile([]matcher.Rule{
		{Kind: matcher.Exact, From: "/a", To: "/b", Status: 301, Host: "a.example.com"},
		{Kind: matcher.Exact, From: "/a", To: "/b", Status: 301, Host: "*.wild.example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"a.example.com", "x.y.wild.example.com", "scanner.example.net"} {
		if allocs := testing.AllocsPerRun(100, func() { s.CoversHost(host) }); allocs != 0 {
			t.Errorf("CoversHost(%q): %v allocations, want 0", host, allocs)
		}
	}
}
