package matcher_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// TestConditionIndexOrder checks rules on one path told apart by query
// and cookie conditions, enough of them to be looked up through their
// index: the first rule in file order whose conditions all hold answers,
// wherever in the list it is and whichever of its conditions it is filed
// under, and other conditions of those rules still apply.
func TestConditionIndexOrder(t *testing.T) {
	q := func(kv ...string) []matcher.QueryCond {
		var c []matcher.QueryCond
		for i := 0; i < len(kv); i += 2 {
			c = append(c, matcher.QueryCond{Name: kv[i], Value: kv[i+1]})
		}
		return c
	}
	rules := []matcher.Rule{
		{From: "/a", To: "/plain", Status: 301, QueryString: matcher.QueryDrop},
		// Line 2: two conditions, filed under the rarer (id=5).
		{From: "/a", To: "/id5-en", Status: 301, QueryString: matcher.QueryDrop, Query: q("id", "5", "lang", "en")},
		{From: "/a", To: "/id5", Status: 301, QueryString: matcher.QueryDrop, Query: q("id", "5")},
		{From: "/a", To: "/en", Status: 301, QueryString: matcher.QueryDrop, Query: q("lang", "en")},
		{From: "/a", To: "/any-ref", Status: 301, QueryString: matcher.QueryDrop, Query: q("ref", matcher.AnyValue)},
		{From: "/a", To: "/empty", Status: 301, QueryString: matcher.QueryDrop, Query: q("e", "")},
		{From: "/a", To: "/sale", Status: 301, QueryString: matcher.QueryDrop, Query: q("c", "spring sale")},
		// A cookie rule that also needs a header.
		{From: "/a", To: "/beta-mobile", Status: 302, When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "beta", Value: "1"}}, Header: []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}}}},
		{From: "/a", To: "/beta", Status: 302, When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "beta", Value: "1"}}}},
		{From: "/a", To: "/session", Status: 302, When: &matcher.When{Cookie: []matcher.KeyValue{{Name: "sid", Value: matcher.AnyValue}}}},
	}
	for i := range 20 {
		rules = append(rules, matcher.Rule{From: "/a", To: "/n/" + strconv.Itoa(i), Status: 301, QueryString: matcher.QueryDrop, Query: q("n", strconv.Itoa(i))})
	}
	s := compileLines(t, "t", rules)
	late := strings.Repeat("x=1&", matcher.MaxParams)
	lateCookie := strings.Repeat("x=1; ", matcher.MaxParams)
	tests := []struct {
		name, query, cookie, header, want string
	}{
		{"none", "", "", "", "/plain"},
		{"both of line 2", "lang=en&id=5", "", "", "/id5-en"},
		{"one of line 2", "id=5", "", "", "/id5"},
		{"the other of line 2", "lang=en", "", "", "/en"},
		{"line 2 before a later rule that holds", "n=3&id=5&lang=en", "", "", "/id5-en"},
		{"a later rule alone", "n=3", "", "", "/n/3"},
		{"first in file order of two that hold", "n=19&lang=en&n=2", "", "", "/en"},
		{"repeated parameter, any occurrence", "n=1&n=2&id=6&id=5", "", "", "/id5"},
		{"escaped", "%6E=1%39", "", "", "/n/19"},
		{"plus as space", "c=spring+sale", "", "", "/sale"},
		{"any value", "ref", "", "", "/any-ref"},
		{"empty value without =", "e", "", "", "/empty"},
		{"empty value with =", "e=", "", "", "/empty"},
		{"empty value wanted, other given", "e=1", "", "", "/plain"},
		{"cookie", "", "a=1; beta=1", "", "/beta"},
		{"cookie and header", "", "beta=1", "mobile", "/beta-mobile"},
		{"first cookie of a name is read", "", "beta=2; beta=1", "", "/plain"},
		{"cookie any value", "", "sid=", "", "/session"},
		{"query before cookie in file order", "id=5", "beta=1", "", "/id5"},
		{"cookie before a later query rule", "n=4", "beta=1", "", "/beta?n=4"},
		// Past MaxParams a parameter or cookie is not read.
		{"parameter within the bound", late[:len(late)-4] + "id=5", "", "", "/id5"},
		{"parameter past the bound", late + "id=5", "", "", "/plain"},
		{"empty parameters do not count", strings.Repeat("&", 1000) + "=1&id=5", "", "", "/id5"},
		{"cookie within the bound", "", lateCookie[:len(lateCookie)-5] + "beta=1", "", "/beta"},
		{"cookie past the bound", "", lateCookie + "beta=1", "", "/plain"},
	}
	var m matcher.Match
	for _, tt := range tests {
		m.Req = &fakeReq{fields: [][2]string{{"Cookie", tt.cookie}, {"X-Device", tt.header}}}
		var query []byte
		if tt.query != "" {
			query = []byte(tt.query)
		}
		if !s.Lookup(nil, []byte("/a"), query, &m) {
			t.Errorf("%s: no match", tt.name)
			continue
		}
		if diff := cmp.Diff(tt.want, string(m.AppendLocation(nil, query))); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}
