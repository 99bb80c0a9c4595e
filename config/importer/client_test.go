package importer

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// TestClientSatisfiesAsMatcher checks that the order check's reading of
// conditions (Client.Satisfies) is the matcher's: for each pair of
// conditions and client, a rule with those conditions answers a Lookup
// made as that client exactly when Satisfies says so.
func TestClientSatisfiesAsMatcher(t *testing.T) {
	whens := []*matcher.When{
		{Language: []string{"de", "de-*"}},
		{Language: []string{"*"}},
		{Language: []string{"pt-BR"}},
		{Country: []string{"AT", "CH"}},
		{Language: []string{"fr"}, Country: []string{"FR", "BE"}},
		{Header: []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}}},
		{Cookie: []matcher.KeyValue{{Name: "lang", Value: "fr"}, {Name: "beta", Value: "1"}}},
		{Header: []matcher.KeyValue{{Name: "X-Device", Value: "*"}}, Cookie: []matcher.KeyValue{{Name: "beta", Value: "*"}}},
		{Unless: &matcher.When{Cookie: []matcher.KeyValue{{Name: "lang", Value: "*"}}}},
		{Unless: &matcher.When{Language: []string{"de"}, Country: []string{"AT"}, Header: []matcher.KeyValue{{Name: "x-device", Value: "mobile"}}}},
		{Cookie: []matcher.KeyValue{{Name: "beta", Value: "*"}}, Unless: &matcher.When{Cookie: []matcher.KeyValue{{Name: "lang", Value: "fr"}}}},
	}
	clients := []*Client{
		nil,
		{},
		{Language: "de"}, {Language: "de-AT"}, {Language: "DE-at"}, {Language: "dex"}, {Language: "pt"}, {Language: "pt-br"},
		{Country: "AT"}, {Country: "at"}, {Language: "fr", Country: "BE"}, {Language: "fr-CA", Country: "CA"},
		{Header: []matcher.KeyValue{{Name: "x-device", Value: "mobile"}}},
		{Header: []matcher.KeyValue{{Name: "X-Device", Value: "Mobile"}}},
		{Cookie: []matcher.KeyValue{{Name: "beta", Value: "1"}, {Name: "lang", Value: "fr"}}},
		{Cookie: []matcher.KeyValue{{Name: "lang", Value: "fr"}}},
		{Cookie: []matcher.KeyValue{{Name: "LANG", Value: "fr"}, {Name: "beta", Value: "1"}}},
	}
	for i, w := range whens {
		set, err := matcher.Compile([]matcher.Rule{{From: "/", To: "/x", Status: 302, When: w, Line: 1}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range clients {
			var m matcher.Match
			m.Req = matcherRequest(c)
			got := set.Lookup(nil, []byte("/"), nil, &m)
			if want := c.Satisfies(w); got != want {
				t.Errorf("when %d %+v, client %+v: matcher %v, Satisfies %v", i, *w, c, got, want)
			}
		}
	}
}

// TestOrderConditions checks Order with rules that hold for some clients
// only: written in file order ([rules] order = "file"), each keeps its
// plainest kind (a page under an earlier splat stays an exact rule) and
// the written rules answer as the service's first match in file order,
// for the clients who satisfy the conditions and for those who do not.
func TestOrderConditions(t *testing.T) {
	de := &matcher.When{Language: []string{"de"}}
	fr := &matcher.When{Language: []string{"fr"}}
	type out struct {
		Rules []string // kind from (line)
		Notes []string
	}
	for _, tc := range []struct {
		name  string
		cands []Candidate
		want  out
	}{
		{"language before plain", []Candidate{when(literal(1, "/", "/de/"), de), literal(2, "/", "/en/")},
			out{Rules: []string{"exact / (1) de", "exact / (2)"}}},
		{"plain before language", []Candidate{literal(1, "/", "/en/"), when(literal(2, "/", "/de/"), de)},
			out{Rules: []string{"exact / (1)"}, Notes: []string{"src:2: / /de/ never applies: line 1 comes first and takes every request it matches; left out"}}},
		{"the same conditions twice", []Candidate{when(literal(1, "/", "/de/"), de), when(literal(2, "/", "/de2/"), de)},
			out{Rules: []string{"exact / (1) de"}, Notes: []string{"src:2: / /de2/ never applies: line 1 comes first and takes every request it matches; left out"}}},
		{"two languages, one path", []Candidate{when(literal(1, "/", "/de/"), de), when(literal(2, "/", "/fr/"), fr), literal(3, "/", "/en/")},
			out{Rules: []string{"exact / (1) de", "exact / (2) fr", "exact / (3)"}}},
		{"language splat before a page under it", []Candidate{when(prefix(1, "/a/", "/de/"), de), literal(2, "/a/b", "/c")},
			out{Rules: []string{"prefix /a/ (1) de", "exact /a/b (2)"}}},
		{"language splat before a longer splat", []Candidate{when(prefix(1, "/a/", "/de/"), de), prefix(2, "/a/b/", "/c/")},
			out{Rules: []string{"prefix /a/ (1) de", "prefix /a/b/ (2)"}}},
		{"language regex before a page", []Candidate{when(pattern(1, `^/p/(\d+)$`, "/de/$1", "/p/1"), de), literal(2, "/p/1", "/one")},
			out{Rules: []string{"regex ^/p/(\\d+)$ (1) de", "exact /p/1 (2)"}}},
		{"a page for French readers under a German splat", []Candidate{when(prefix(1, "/a/", "/de/"), de), when(literal(2, "/a/b", "/fr"), fr)},
			out{Rules: []string{"prefix /a/ (1) de", "exact /a/b (2) fr"}}},
		{"a page for Austrians under a German splat", []Candidate{when(prefix(1, "/a/", "/de/"), de), when(literal(2, "/a/b", "/at"), &matcher.When{Country: []string{"AT"}})},
			out{Rules: []string{"prefix /a/ (1) de", "exact /a/b (2) "}}},
		{"plain splat before a language page", []Candidate{prefix(1, "/a/", "/x/"), when(literal(2, "/a/b", "/de"), de)},
			out{Rules: []string{"prefix /a/ (1)"}, Notes: []string{"src:2: /a/b /de never applies: line 1 comes first and takes every request it matches; left out"}}},
		{"a rewrite for German readers in front", []Candidate{rewriteFor(1, "/a/", de), literal(2, "/a/b", "/c")},
			out{Rules: []string{"exact /a/b (2)"}, Notes: []string{"src:1: /a/b (Accept-Language: de): line 1 (a 200 rewrite, not translated) applies, redirectd answers with line 2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Order(tc.cands)
			var got out
			for _, r := range res.Rules {
				s := r.Kind.String() + " " + r.From + " (" + strconv.Itoa(r.Line) + ")"
				if r.When != nil {
					s += " " + strings.Join(r.When.Language, ",")
				}
				got.Rules = append(got.Rules, s)
			}
			for _, n := range res.Notes {
				got.Notes = append(got.Notes, n.String())
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// when gives c the conditions w, in its rules and in its model.
func when(c Candidate, w *matcher.When) Candidate {
	for _, r := range []*matcher.Rule{c.Natural, c.Regex} {
		if r != nil {
			r.When = w
		}
	}
	path := c.Matches
	c.When, c.Matches = w, func(r Request) bool { return r.Client.Satisfies(w) && path(r) }
	return c
}

// prefix is a candidate for a splat: a prefix rule that also takes the
// path without its final slash, or the same as a regex.
func prefix(line int, from, to string) Candidate {
	base := strings.TrimSuffix(from, "/")
	c := Candidate{File: "src", Line: line, Text: from + "* " + to, Prefix: base,
		Natural: &matcher.Rule{Kind: matcher.Prefix, From: from, To: to, Status: 301, TrailingSlash: true},
		Regex:   &matcher.Rule{Kind: matcher.Regex, From: "^" + base + "(?:/(.*))?$", To: to + "$1", Status: 301},
		Matches: func(r Request) bool { return r.Path == base || strings.HasPrefix(r.Path, from) },
		Samples: []Request{{Path: base}, {Path: from + "x"}, {Path: from + "x/y"}}}
	return c
}

// rewriteFor is a 200 rewrite of a splat for the clients of w: not
// translated, but taking their requests on the service.
func rewriteFor(line int, from string, w *matcher.When) Candidate {
	c := when(prefix(line, from, "/index.html"), w)
	c.Text, c.Natural, c.Regex, c.What = from+"* /index.html 200", nil, nil, "a 200 rewrite"
	return c
}

// TestOrderManyClients checks that a file whose conditions make very many
// kinds of client is checked with bounded work, with a note saying which
// requests were not asked. The work is the requests asked, each of every
// rule in each round: the rules' own samples, once more as the client of
// a rule's own conditions, and at most maxClientSamples for the others'
// clients (a bound on work, not on time, which a busy machine stretches).
func TestOrderManyClients(t *testing.T) {
	var cands []Candidate
	for i := range 400 {
		lang := fmt.Sprintf("l%c%c", 'a'+i/26%26, 'a'+i%26)
		cands = append(cands, when(prefix(i+1, "/", "/"+lang+"/"), &matcher.When{Language: []string{lang}}))
		cands = append(cands, literal(401+i, fmt.Sprintf("/p%d", i), "/x"))
	}
	samples := func() (n int) {
		for _, c := range cands {
			n += len(c.Samples)
		}
		return n
	}
	own := samples()
	res := Order(cands) // adds the clients' samples to cands' own
	if asked, most := samples(), 2*own+maxClientSamples; asked > most {
		t.Errorf("Order asked %d requests, want at most %d", asked, most)
	}
	found := false
	for _, n := range res.Notes {
		found = found || strings.Contains(n.Msg, "too many kinds of client")
	}
	if !found {
		t.Errorf("no note on the clients not asked: %v", res.Notes)
	}
}
