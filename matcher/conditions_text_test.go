package matcher_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// TestConditionsText: every kind of condition is written, unless's
// marked, none for a plain rule.
func TestConditionsText(t *testing.T) {
	from := time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		rule matcher.Rule
		want []string
	}{
		{"plain", matcher.Rule{From: "/a"}, nil},
		{"scheme", matcher.Rule{From: "/a", When: &matcher.When{Scheme: "https"}}, []string{"scheme = https"}},
		{"all", matcher.Rule{From: "/a", Query: []matcher.QueryCond{{Name: "ref", Value: "x"}, {Name: "id", Value: "*"}},
			When: &matcher.When{Scheme: "http", Language: []string{"de", "fr-*"}, Country: []string{"DE"},
				Header: []matcher.KeyValue{{Name: "X-Beta", Value: "1"}}, Cookie: []matcher.KeyValue{{Name: "lang", Value: "*"}},
				Unless: &matcher.When{Header: []matcher.KeyValue{{Name: "X-Bot", Value: "*"}}, Query: []matcher.QueryCond{{Name: "skip", Value: "1"}}}},
			Active: matcher.Window{From: from}},
			[]string{`query ref = "x"`, "query id (any value)", "language = de, fr-*", "country = DE",
				`header X-Beta = "1"`, "cookie lang (any value)", "scheme = http", "unless header X-Bot (any value)", `unless query skip = "1"`,
				"active from 2026-12-24T00:00:00Z"}},
	} {
		if diff := cmp.Diff(tc.want, tc.rule.Conditions()); diff != "" {
			t.Errorf("%s: Conditions (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestNearMisses: a URL that a rule matches but for its conditions
// names that rule and each condition it fails; one that meets them, or
// no conditional rule's path, names none.
func TestNearMisses(t *testing.T) {
	b := matcher.NewBuilder(matcher.DefaultLimits)
	rules := []matcher.Rule{
		{From: "/a", To: "/s", Status: 301, When: &matcher.When{Scheme: "https"}, File: "f", Line: 1},
		{From: "/a", To: "/d", Status: 301, When: &matcher.When{Language: []string{"de"}, Header: []matcher.KeyValue{{Name: "X-Beta", Value: "1"}}}, File: "f", Line: 2},
		{Kind: matcher.Prefix, From: "/p/", To: "/q/", Status: 302, Query: []matcher.QueryCond{{Name: "v", Value: "2"}},
			Active: matcher.Window{Until: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}, File: "f", Line: 3},
		{From: "/plain", To: "/x", Status: 301, File: "f", Line: 4},
	}
	for i := range rules {
		if err := b.Add(&rules[i]); err != nil {
			t.Fatal(err)
		}
	}
	set, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	type near struct {
		Source string
		Unmet  []string
	}
	for _, tc := range []struct {
		path, query string
		req         *fakeReq
		want        []near
	}{
		{"/a", "", &fakeReq{}, []near{
			{"f:1", []string{"requires scheme = https; this URL is http"}},
			{"f:2", []string{"requires language = de; the request has no Accept-Language preference", `requires header X-Beta = "1"; the request has none`}},
		}},
		{"/a", "", &fakeReq{https: true, fields: [][2]string{{"Accept-Language", "fr"}, {"X-Beta", "2"}}}, []near{
			{"f:2", []string{`requires language = de; the request prefers "fr"`, `requires header X-Beta = "1"; the request has "2"`}},
		}},
		{"/p/x", "v=1", &fakeReq{}, []near{{"f:3", []string{`requires query v = "2"; the query has "1"`}}}},
		{"/p/x", "v=2", &fakeReq{}, nil},
		{"/plain", "", &fakeReq{}, nil},
		{"/none", "", &fakeReq{}, nil},
	} {
		var q []byte
		if tc.query != "" {
			q = []byte(tc.query)
		}
		var got []near
		for _, n := range set.NearMisses(nil, []byte(tc.path), q, tc.req, now) {
			got = append(got, near{n.Rule.Source(), n.Unmet})
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s?%s: NearMisses (-want +got):\n%s", tc.path, tc.query, diff)
		}
	}
	late := time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
	got := set.NearMisses(nil, []byte("/p/x"), []byte("v=2"), &fakeReq{}, late)
	if len(got) != 1 || len(got[0].Unmet) != 1 || got[0].Unmet[0] != "is active until 2027-01-01T00:00:00Z; it is now 2027-02-01T00:00:00Z" {
		t.Errorf("past the window: %+v", got)
	}
}
