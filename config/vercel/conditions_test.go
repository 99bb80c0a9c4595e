package vercel

import (
	"testing"

	"github.com/redirectd/redirectd/config/importer/importertest"
	"github.com/redirectd/redirectd/matcher"
)

// TestHasConditions checks how has and missing on headers and cookies
// are written: a literal value becomes when.header or when.cookie, no
// value "*" (present); missing becomes when.unless (query included); a
// regex, a missing host and a repeated key are left out with a note that
// says why.
func TestHasConditions(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name    string
		has     []Cond
		missing []Cond
		want    *matcher.When // nil: left out
		note    string
	}{
		{"header", []Cond{{Type: "header", Key: "X-Device", Value: str("mobile")}}, nil,
			&matcher.When{Header: []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}}}, ""},
		{"cookie", []Cond{{Type: "cookie", Key: "lang", Value: str("fr")}}, nil,
			&matcher.When{Cookie: []matcher.KeyValue{{Name: "lang", Value: "fr"}}}, ""},
		{"escaped dot", []Cond{{Type: "header", Key: "x-version", Value: str(`2\.0`)}}, nil,
			&matcher.When{Header: []matcher.KeyValue{{Name: "x-version", Value: "2.0"}}}, ""},
		{"both, with a query", []Cond{{Type: "cookie", Key: "lang", Value: str("fr")}, {Type: "header", Key: "x-a", Value: str("1")}, {Type: "query", Key: "ref"}}, nil,
			&matcher.When{Header: []matcher.KeyValue{{Name: "x-a", Value: "1"}}, Cookie: []matcher.KeyValue{{Name: "lang", Value: "fr"}}}, ""},
		{"vercel's own header", []Cond{{Type: "header", Key: "x-vercel-ip-country", Value: str("DE")}}, nil,
			&matcher.When{Header: []matcher.KeyValue{{Name: "x-vercel-ip-country", Value: "DE"}}}, "x-vercel-ip-country is a header Vercel's edge sets"},
		{"presence", []Cond{{Type: "cookie", Key: "session"}}, nil,
			&matcher.When{Cookie: []matcher.KeyValue{{Name: "session", Value: "*"}}}, ""},
		{"a star value", []Cond{{Type: "cookie", Key: "session", Value: str("*")}}, nil, nil, `the value "*", which redirectd's when reads as any value`},
		{"regex", []Cond{{Type: "header", Key: "user-agent", Value: str(".*Android.*")}}, nil, nil, `a has condition on the header user-agent with the regex ".*Android.*"`},
		{"twice", []Cond{{Type: "header", Key: "X-A", Value: str("1")}, {Type: "header", Key: "x-a", Value: str("2")}}, nil, nil, "two has conditions on the header x-a"},
		{"spaces", []Cond{{Type: "header", Key: "x-a", Value: str(" 1")}}, nil, nil, `the value " 1", which begins or ends with a space`},
		{"missing", nil, []Cond{{Type: "header", Key: "x-a", Value: str("1")}, {Type: "cookie", Key: "seen"}, {Type: "query", Key: "stay"}},
			&matcher.When{Unless: &matcher.When{Header: []matcher.KeyValue{{Name: "x-a", Value: "1"}}, Cookie: []matcher.KeyValue{{Name: "seen", Value: "*"}},
				Query: []matcher.QueryCond{{Name: "stay", Value: "*"}}}}, ""},
		{"has and missing", []Cond{{Type: "cookie", Key: "session"}}, []Cond{{Type: "cookie", Key: "session", Value: str("guest")}},
			&matcher.When{Cookie: []matcher.KeyValue{{Name: "session", Value: "*"}}, Unless: &matcher.When{Cookie: []matcher.KeyValue{{Name: "session", Value: "guest"}}}}, ""},
		{"missing header with spaces always holds", nil, []Cond{{Type: "header", Key: "x-a", Value: str(" 1")}}, nil, ""},
		{"missing host", nil, []Cond{{Type: "host", Value: str("old.example.com")}}, nil, "a missing condition on the host"},
		{"missing regex", nil, []Cond{{Type: "header", Key: "user-agent", Value: str(".*bot.*")}}, nil, `a missing condition on the header user-agent with the regex ".*bot.*"`},
		{"host without a value", []Cond{{Type: "host"}}, nil, nil, "a has condition on the host without a value"},
		{"unknown type", []Cond{{Type: "ip", Key: "x", Value: str("1")}}, nil, nil, `a has condition of type "ip"`},
		{"not a cookie name", []Cond{{Type: "cookie", Key: "a b", Value: str("1")}}, nil, nil, `when.cookie: "a b" is not a`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cands, notes := Translate("vercel.json", []Redirect{{Line: 1, Source: "/", Destination: "/x", Has: tc.has, Missing: tc.missing}})
			importertest.CheckWhen(t, cands, notes, tc.want, tc.note)
		})
	}
}
