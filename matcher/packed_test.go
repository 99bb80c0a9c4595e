package matcher_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// packedRules mixes plain exact rules (packed) with rules that stay on the
// ordinary path, on several hosts, so that lookups, Each's order and the
// duplicate checks cross between the two.
var packedRules = []matcher.Rule{
	{Kind: matcher.Exact, From: "/a", To: "/to-a", Status: 301},
	{Kind: matcher.Exact, From: "/b", To: "https://x.example/b?k=v", Status: 302},
	{Kind: matcher.Exact, From: "/drop", To: "/d?k=v", Status: 303, QueryString: matcher.QueryDrop},
	{Kind: matcher.Exact, From: "/replace", To: "/r?k=v", Status: 307, QueryString: matcher.QueryReplace},
	{Kind: matcher.Regex, From: `^/re/(\d+)$`, To: "/n/$1", Status: 308},
	{Kind: matcher.Exact, From: "/caf%c3%a9", To: "/percent", Status: 301}, // ordinary: escapes are normalised
	{Kind: matcher.Exact, From: "/Case", To: "/ci", Status: 301, CaseInsensitive: true},
	{Kind: matcher.Exact, From: "/a", Host: "Shop.Example.com", To: "/shop-a", Status: 308},
	{Kind: matcher.Exact, From: "/a", Host: "*.example.org", To: "/wild-a", Status: 301},
	{Kind: matcher.Prefix, From: "/p/", To: "/prefix/", Status: 302},
	{Kind: matcher.Exact, From: "/p/exact", To: "/exact-over-prefix", Status: 301},
	{Kind: matcher.Exact, From: "/c", To: "/to-c", Status: 301},
}

func compilePacked(t *testing.T) *matcher.Set {
	t.Helper()
	return compileLines(t, "big.map", packedRules)
}

func TestPackedLookup(t *testing.T) {
	s := compilePacked(t)
	type result struct {
		Source   string
		Status   int
		Location string
		Rule     matcher.Rule
	}
	rule := func(i int) matcher.Rule {
		r := packedRules[i]
		r.File, r.Line, r.Host = "big.map", i+1, strings.ToLower(r.Host)
		return r
	}
	tests := []struct {
		host, path, query string
		want              *result
	}{
		{"", "/a", "", &result{"big.map:1", 301, "/to-a", rule(0)}},
		{"", "/a", "q=1", &result{"big.map:1", 301, "/to-a?q=1", rule(0)}},
		{"", "/b", "q=1", &result{"big.map:2", 302, "https://x.example/b?k=v&q=1", rule(1)}},
		{"", "/drop", "q=1", &result{"big.map:3", 303, "/d", rule(2)}},
		{"", "/replace", "q=1", &result{"big.map:4", 307, "/r?k=v", rule(3)}},
		{"", "/re/12", "", &result{"big.map:5", 308, "/n/12", rule(4)}},
		{"", "/caf%C3%A9", "", &result{"big.map:6", 301, "/percent", rule(5)}},
		{"", "/CASE", "", &result{"big.map:7", 301, "/ci", rule(6)}},
		{"shop.example.com", "/a", "", &result{"big.map:8", 308, "/shop-a", rule(7)}},
		{"a.example.org", "/a", "", &result{"big.map:9", 301, "/wild-a", rule(8)}},
		{"shop.example.com", "/c", "", &result{"big.map:12", 301, "/to-c", rule(11)}},
		{"", "/p/exact", "", &result{"big.map:11", 301, "/exact-over-prefix", rule(10)}},
		{"", "/p/other", "", &result{"big.map:10", 302, "/prefix/other", rule(9)}},
		{"", "/a/", "", nil},
		{"", "/A", "", nil},
		{"", "/nothing", "", nil},
	}
	var m matcher.Match
	for _, tt := range tests {
		t.Run(tt.host+tt.path, func(t *testing.T) {
			var got *result
			if s.Lookup([]byte(tt.host), []byte(tt.path), []byte(tt.query), &m) {
				got = &result{m.Source(), m.Status(), string(m.AppendLocation(nil, []byte(tt.query))), *m.Rule()}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPackedEach checks that Each lists packed and ordinary rules in file
// order with their hits, and that Counts and Len count both.
func TestPackedEach(t *testing.T) {
	s := compilePacked(t)
	var m matcher.Match
	for _, p := range []string{"/a", "/a", "/re/1", "/c"} {
		if !s.Lookup(nil, []byte(p), nil, &m) {
			t.Fatalf("%s: no match", p)
		}
		m.Hit()
	}
	type line struct {
		Line int
		Hits uint64
	}
	var got []line
	s.Each(func(r matcher.RuleHits) { got = append(got, line{r.Line, r.Hits}) })
	want := []line{{1, 2}, {2, 0}, {3, 0}, {4, 0}, {5, 1}, {6, 0}, {7, 0}, {8, 0}, {9, 0}, {10, 0}, {11, 0}, {12, 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, want := s.Counts(), (matcher.Counts{Exact: 10, Prefix: 1, Regex: 1}); got != want || s.Len() != 12 {
		t.Errorf("counts %+v len %d, want %+v and 12", got, s.Len(), want)
	}
	if got := len(s.Rules()); got != 12 {
		t.Errorf("Rules: %d rules, want 12", got)
	}
}

// TestPackedDuplicates checks that a duplicate exact rule is refused with
// both places named, whichever path either rule took.
func TestPackedDuplicates(t *testing.T) {
	exact := func(from, host string, line int, ci bool) matcher.Rule {
		return matcher.Rule{Kind: matcher.Exact, From: from, Host: host, To: "/x", Status: 301, File: "m.map", Line: line, CaseInsensitive: ci}
	}
	cond := func(r matcher.Rule) matcher.Rule {
		r.Query = []matcher.QueryCond{{Name: "x", Value: "*"}}
		return r
	}
	for _, tt := range []struct {
		name  string
		rules []matcher.Rule
		want  string // "" for no error
	}{
		{"packed twice", []matcher.Rule{exact("/a", "", 1, false), exact("/b", "", 2, false), exact("/a", "", 3, false)},
			`m.map:3: from: duplicate exact rule for "/a" (first defined at m.map:1)`},
		{"host case", []matcher.Rule{exact("/a", "x.com", 1, false), exact("/a", "X.COM", 2, false)},
			`m.map:2: from: duplicate exact rule for "/a" (first defined at m.map:1)`},
		{"other host", []matcher.Rule{exact("/a", "x.com", 1, false), exact("/a", "", 2, false), exact("/a", "*.x.com", 3, false)}, ""},
		{"ordinary then packed", []matcher.Rule{exact("/caf%C3%A9", "", 1, false), exact("/cafe", "", 2, false), exact("/caf%c3%a9", "", 3, false)},
			`m.map:3: from: duplicate exact rule for "/caf%c3%a9" (first defined at m.map:1)`},
		{"UTF-8 and its encoding are one path", []matcher.Rule{exact("/café", "", 1, false), exact("/caf%C3%A9", "", 2, false)},
			`m.map:2: from: duplicate exact rule for "/caf%C3%A9" (first defined at m.map:1)`},
		{"packed then ordinary", []matcher.Rule{exact("/~u", "", 1, false), exact("/%7Eu", "", 2, false)},
			`m.map:2: from: duplicate exact rule for "/%7Eu" (first defined at m.map:1)`},
		{"query conditions are no duplicate", []matcher.Rule{exact("/a", "", 1, false), cond(exact("/a", "", 2, false)), exact("/b", "", 3, false)}, ""},
		{"but the plain rule is", []matcher.Rule{cond(exact("/a", "", 1, false)), exact("/a", "", 2, false), exact("/a", "", 3, false)},
			`m.map:3: from: duplicate exact rule for "/a" (first defined at m.map:2)`},
		{"ordinary plain rule after conditions", []matcher.Rule{cond(exact("/%7Eu", "", 1, false)), exact("/%7Eu", "", 2, false), exact("/~u", "", 3, false)},
			`m.map:3: from: duplicate exact rule for "/~u" (first defined at m.map:2)`},
		{"case-insensitive is another table", []matcher.Rule{exact("/a", "", 1, false), exact("/a", "", 2, true)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := matcher.Compile(tt.rules)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPackedLimits checks that a rule past a packed table's limits is
// refused with an error that names it and the limit, and that the rules
// before it were kept.
func TestPackedLimits(t *testing.T) {
	add := func(b *matcher.Builder, n int, host string) error {
		for i := range n {
			r := matcher.Rule{Kind: matcher.Exact, Host: host, From: fmt.Sprintf("/p/%d", i), To: "/0123456789", Status: 301, File: "big.map", Line: i + 1}
			if err := b.Add(&r); err != nil {
				return err
			}
		}
		return nil
	}
	for _, tt := range []struct {
		name   string
		limits matcher.Limits
		host   string
		want   string
	}{
		{"bytes", matcher.Limits{HostBytes: 10 * 15, HostRules: 100}, "",
			`big.map:11: from: too many exact rules for host-less rules: their paths and targets would pass 150 bytes, the most one host's rule table holds`},
		{"rules", matcher.Limits{HostBytes: 1 << 20, HostRules: 7}, "example.com",
			`big.map:8: from: too many exact rules for host "example.com": there would be more than 7, the most one host's rule table holds`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := matcher.NewBuilder(tt.limits)
			err := add(b, 20, tt.host)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.Is(err, matcher.ErrLimit) {
				t.Fatalf("error %v, want %q... wrapping ErrLimit", err, tt.want)
			}
			s, err := b.Set()
			if err != nil {
				t.Fatal(err)
			}
			var m matcher.Match
			if !s.Lookup([]byte(tt.host), []byte("/p/0"), nil, &m) || s.Lookup([]byte(tt.host), []byte("/p/19"), nil, &m) {
				t.Error("the rules before the limit should serve, the one past it not")
			}
		})
	}
}

// TestPackedGrowth adds enough rules to rehash the table many times and
// checks that every one is still found, and that near misses are not.
func TestPackedGrowth(t *testing.T) {
	const n = 50000
	b := matcher.NewBuilder(matcher.DefaultLimits)
	for i := range n {
		r := matcher.Rule{Kind: matcher.Exact, From: fmt.Sprintf("/k/%d", i), To: fmt.Sprintf("/v/%d", i), Status: 301, File: "big.map", Line: i + 1}
		if err := b.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	s, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	var m matcher.Match
	for i := range n {
		if !s.Lookup(nil, fmt.Appendf(nil, "/k/%d", i), nil, &m) || string(m.AppendLocation(nil, nil)) != fmt.Sprintf("/v/%d", i) {
			t.Fatalf("/k/%d: not found or wrong Location", i)
		}
		if s.Lookup(nil, fmt.Appendf(nil, "/k/%d/", i), nil, &m) {
			t.Fatalf("/k/%d/ found", i)
		}
	}
}

// TestPackedAfterConditions checks that rules with query conditions are
// tried before the packed rule of the same path, in either file order.
func TestPackedAfterConditions(t *testing.T) {
	for _, condFirst := range []bool{true, false} {
		plain := matcher.Rule{Kind: matcher.Exact, From: "/promo", To: "/plain", Status: 301, File: "m.map", Line: 1}
		cond := matcher.Rule{Kind: matcher.Exact, From: "/promo", To: "/news", Status: 302, File: "m.map", Line: 2,
			Query: []matcher.QueryCond{{Name: "utm", Value: "x"}}, QueryString: matcher.QueryDrop}
		rs := []matcher.Rule{plain, cond}
		if condFirst {
			rs = []matcher.Rule{cond, plain}
		}
		s, err := matcher.Compile(rs)
		if err != nil {
			t.Fatal(err)
		}
		var m matcher.Match
		for query, want := range map[string]string{"": "/plain", "utm=y": "/plain?utm=y", "utm=x": "/news"} {
			if !s.Lookup(nil, []byte("/promo"), []byte(query), &m) {
				t.Fatalf("/promo?%s: no match", query)
			}
			if got := string(m.AppendLocation(nil, []byte(query))); got != want {
				t.Errorf("condFirst %v: /promo?%s: Location %q, want %q", condFirst, query, got, want)
			}
		}
	}
}

// TestPackedDuplicatesMany checks the duplicates of a table indexed in
// batches and grown several times: each error still names the later rule
// and the first one.
func TestPackedDuplicatesMany(t *testing.T) {
	const n = 1 << 17
	var rules []matcher.Rule
	for i := range n {
		from := fmt.Sprintf("/k/%d", i)
		if i == 7000 || i == 12000 || i == n-1 {
			from = "/k/3000" // a fourth time, counting the original
		}
		if i == 15000 {
			from = "/k/14999"
		}
		rules = append(rules, matcher.Rule{Kind: matcher.Exact, From: from, To: "/x", Status: 301, File: "m.map", Line: i + 1})
	}
	_, err := matcher.Compile(rules)
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.Split(err.Error(), "\n")
	slices.Sort(got)
	want := []string{
		`m.map:12001: from: duplicate exact rule for "/k/3000" (first defined at m.map:3001)`,
		`m.map:131072: from: duplicate exact rule for "/k/3000" (first defined at m.map:3001)`,
		`m.map:15001: from: duplicate exact rule for "/k/14999" (first defined at m.map:15000)`,
		`m.map:7001: from: duplicate exact rule for "/k/3000" (first defined at m.map:3001)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
