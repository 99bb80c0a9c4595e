package matcher_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// TestRuleLanguage covers the per-rule options: case and trailing-slash
// insensitivity, query handling, $host/$path/$query, wildcard hosts and
// percent-encoding normalisation.
func TestRuleLanguage(t *testing.T) {
	rules := []matcher.Rule{
		{From: "/About", To: "/about-us", CaseInsensitive: true},
		{From: "/team/", To: "/people", TrailingSlash: true},
		{From: "/Both/", To: "/both", CaseInsensitive: true, TrailingSlash: true},
		{Kind: matcher.Prefix, From: "/Shop/", To: "https://shop.example.com/", CaseInsensitive: true},
		{Kind: matcher.Prefix, From: "/blog/", To: "/news/", TrailingSlash: true},
		{From: "/drop", To: "/target?a=1", QueryString: matcher.QueryDrop},
		{From: "/replace", To: "/target?a=1", QueryString: matcher.QueryReplace},
		{From: "/keep", To: "/target?a=1"},
		{Kind: matcher.Regex, From: `^/r/(.*)$`, To: "https://$host/x/$1?from=$path&q=$query", QueryString: matcher.QueryReplace},
		{Kind: matcher.Regex, From: `^/CI/(\d+)$`, To: "/ci/$1", CaseInsensitive: true},
		{From: "/caf%c3%a9", To: "/coffee"},
		{From: "/~user", To: "/home"},
		{From: "/w", Host: "*.example.com", To: "/wild"},
		{From: "/w", Host: "*.eu.example.com", To: "/wild-eu"},
		{From: "/w", Host: "shop.eu.example.com", To: "/exact-host"},
		{From: "/w", To: "/no-host"},
	}
	for i := range rules {
		if rules[i].Status == 0 {
			rules[i].Status = 301
		}
		rules[i].File, rules[i].Line = "t", i+1
	}
	s, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ host, path, query, want string }{
		{"", "/About", "", "/about-us"},
		{"", "/ABOUT", "", "/about-us"},
		{"", "/about/", "", ""},
		{"", "/team/", "", "/people"},
		{"", "/team", "", "/people"},
		{"", "/Team", "", ""},
		{"", "/both", "", "/both"},
		{"", "/BOTH/", "", "/both"},
		{"", "/shop/shoes/Red", "", "https://shop.example.com/shoes/Red"},
		{"", "/SHOP/x", "", "https://shop.example.com/x"},
		{"", "/blog", "", "/news/"},
		{"", "/blog/2024/post", "", "/news/2024/post"},
		{"", "/drop", "b=2", "/target"},
		{"", "/replace", "b=2", "/target?a=1"},
		{"", "/keep", "b=2", "/target?a=1&b=2"},
		{"Example.COM:8080", "/r/a/b", "z=9", "https://example.com/x/a/b?from=/r/a/b&q=z=9"},
		{"", "/ci/7", "", "/ci/7"},
		{"", "/cI/7", "", "/ci/7"},
		{"", "/caf%C3%A9", "", "/coffee"},
		{"", "/caf%c3%a9", "", "/coffee"},
		{"", "/%7Euser", "", "/home"},
		{"", "/%7euser", "", "/home"},
		{"a.example.com", "/w", "", "/wild"},
		{"x.y.example.com", "/w", "", "/wild"},
		{"a.eu.example.com", "/w", "", "/wild-eu"},
		{"shop.eu.example.com", "/w", "", "/exact-host"},
		{"example.com", "/w", "", "/no-host"},
		{"notexample.com", "/w", "", "/no-host"},
	}
	var m matcher.Match
	for _, tt := range tests {
		got := ""
		if s.Lookup([]byte(tt.host), []byte(tt.path), []byte(tt.query), &m) {
			got = string(m.AppendLocation(nil, []byte(tt.query)))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Lookup(%q, %q?%s) (-want +got):\n%s", tt.host, tt.path, tt.query, diff)
		}
	}
}

func TestRuleLanguageErrors(t *testing.T) {
	for _, tt := range []struct {
		rules []matcher.Rule
		want  string
	}{
		{[]matcher.Rule{{From: "/A", To: "/x", CaseInsensitive: true}, {From: "/a", To: "/y", CaseInsensitive: true}}, "duplicate exact rule"},
		{[]matcher.Rule{{From: "/a/", To: "/x", TrailingSlash: true}, {From: "/a", To: "/y", TrailingSlash: true}}, "duplicate exact rule"},
		{[]matcher.Rule{{Kind: matcher.Regex, From: "^/(a)", To: "/$nope"}}, "$host, $path, $uri and $query are also known"},
	} {
		for i := range tt.rules {
			tt.rules[i].Status, tt.rules[i].File, tt.rules[i].Line = 301, "t", i+1
		}
		if _, err := matcher.Compile(tt.rules); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%+v) = %v, want %q", tt.rules, err, tt.want)
		}
	}
}

func TestQueryConditions(t *testing.T) {
	q := func(kv ...string) []matcher.QueryCond {
		var c []matcher.QueryCond
		for i := 0; i < len(kv); i += 2 {
			c = append(c, matcher.QueryCond{Name: kv[i], Value: kv[i+1]})
		}
		return c
	}
	rules := []matcher.Rule{
		{From: "/promo", To: "/plain"},
		{From: "/promo", To: "/news", Query: q("utm_source", "newsletter", "ref", "*")},
		{From: "/promo", To: "/spring", Query: q("campaign", "spring sale")},
		{From: "/only", To: "/cond", Query: q("a", "1")},
		{Kind: matcher.Prefix, From: "/p/", To: "/short/"},
		{Kind: matcher.Prefix, From: "/p/long/", To: "/long/", Query: q("x", "")},
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/rc/$1", Query: q("v", "2")},
		{Kind: matcher.Regex, From: `^/r/(\d+)$`, To: "/r/$1"},
		{From: "/ci", To: "/ci-cond", CaseInsensitive: true, Query: q("k", "*")},
	}
	for i := range rules {
		rules[i].Status, rules[i].File, rules[i].Line = 301, "t", i+1
		rules[i].QueryString = matcher.QueryDrop
	}
	s, err := matcher.Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, query, want string }{
		{"/promo", "", "/plain"},
		{"/promo", "utm_source=newsletter", "/plain"},
		{"/promo", "utm_source=newsletter&ref=", "/news"},
		{"/promo", "ref&utm_source=newsletter", "/news"},
		{"/promo", "ref=x&utm_source=other&utm_source=newsletter", "/news"},
		{"/promo", "utm_source=Newsletter&ref=1", "/plain"},
		{"/promo", "utm%5Fsource=news%6Cetter&ref=1", "/news"},
		{"/promo", "campaign=spring+sale", "/spring"},
		{"/promo", "campaign=spring%20sale", "/spring"},
		{"/promo", "campaign=spring", "/plain"},
		{"/only", "a=1", "/cond"},
		{"/only", "a=2", ""},
		{"/only", "", ""},
		{"/p/long/x", "x=", "/long/x"},
		{"/p/long/x", "x", "/long/x"},
		{"/p/long/x", "x=1", "/short/long/x"},
		{"/p/long/x", "", "/short/long/x"},
		{"/r/5", "v=2", "/rc/5"},
		{"/r/5", "v=3", "/r/5"},
		{"/CI", "k=1", "/ci-cond"},
		{"/CI", "", ""},
	}
	var m matcher.Match
	for _, tt := range tests {
		got := ""
		if s.Lookup(nil, []byte(tt.path), []byte(tt.query), &m) {
			got = string(m.AppendLocation(nil, []byte(tt.query)))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Lookup(%q?%s) (-want +got):\n%s", tt.path, tt.query, diff)
		}
	}

	dup := []matcher.Rule{
		{From: "/a", To: "/x", Query: q("b", "1", "a", "*")},
		{From: "/a", To: "/y", Query: q("a", "*", "b", "1")},
	}
	for i := range dup {
		dup[i].Status, dup[i].File, dup[i].Line = 301, "t", i+1
	}
	if _, err := matcher.Compile(dup); err == nil || !strings.Contains(err.Error(), "duplicate exact rule for \"/a\" with the same query conditions (first defined at t:1)") {
		t.Errorf("Compile(same conditions twice) = %v, want a duplicate error", err)
	}
}
