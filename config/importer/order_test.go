package importer

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher"
)

// literal is a candidate for an exact path, its model the path itself.
func literal(line int, path, to string) Candidate {
	return Candidate{File: "src", Line: line, Text: path + " " + to,
		Natural: &matcher.Rule{From: path, To: to, Status: 301},
		Regex:   &matcher.Rule{Kind: matcher.Regex, From: "^" + regexp.QuoteMeta(path) + "$", To: to, Status: 301},
		Matches: func(r Request) bool { return r.Path == path }, Samples: []Request{{Path: path}}}
}

// pattern is a candidate that only a regex says.
func pattern(line int, expr, to string, samples ...string) Candidate {
	re := regexp.MustCompile(expr)
	c := Candidate{File: "src", Line: line, Text: expr + " " + to,
		Regex:   &matcher.Rule{Kind: matcher.Regex, From: expr, To: to, Status: 302},
		Matches: func(r Request) bool { return re.MatchString(r.Path) }}
	for _, s := range samples {
		c.Samples = append(c.Samples, Request{Path: s})
	}
	return c
}

// TestOrder checks each way Order keeps the source's first-match order:
// a rule that never applies is left out, a later exact rule that
// redirectd would try first is written as a regex, a clash between two
// rules makes the later a regex, and what cannot be kept is noted.
func TestOrder(t *testing.T) {
	type out struct {
		Rules []string // kind from (line)
		Notes []string
	}
	prefixA := literal(2, "/a/", "/b/")
	prefixA.Natural = &matcher.Rule{Kind: matcher.Prefix, From: "/a/", To: "/b/", Status: 301, TrailingSlash: true}
	prefixA.Regex = &matcher.Rule{Kind: matcher.Regex, From: "^/a(?:/(.*))?$", To: "/b/$1", Status: 301}
	prefixA.Matches = func(r Request) bool { return r.Path == "/a" || strings.HasPrefix(r.Path, "/a/") }
	prefixA.Samples = []Request{{Path: "/a"}, {Path: "/a/x"}}
	exactA := literal(1, "/a", "/z")
	exactA.Natural.TrailingSlash = true
	rewrite := literal(1, "/spa", "")
	rewrite.Natural, rewrite.Regex, rewrite.What = nil, nil, "a 200 rewrite"
	for _, tc := range []struct {
		name  string
		cands []Candidate
		want  out
	}{
		{"in order", []Candidate{literal(1, "/x", "/y"), pattern(2, `^/p/(\d+)$`, "/q/$1", "/p/1")},
			out{Rules: []string{"exact /x (1)", "regex ^/p/(\\d+)$ (2)"}}},
		{"never applies", []Candidate{pattern(1, `^/p/(.*)$`, "/q/$1", "/p/1"), literal(2, "/p/new", "/n")},
			out{Rules: []string{"regex ^/p/(.*)$ (1)"}, Notes: []string{"src:2: /p/new /n never applies: line 1 comes first and takes every request it matches; left out"}}},
		{"exact after an overlapping regex", []Candidate{pattern(1, `^/p/(\d+)$`, "/q/$1", "/p/1"), literal(2, "/p/1", "/one"), literal(3, "/p/x", "/ex")},
			out{Rules: []string{"regex ^/p/(\\d+)$ (1)", "exact /p/x (3)"}, Notes: []string{"src:2: /p/1 /one never applies: line 1 comes first and takes every request it matches; left out"}}},
		{"clash", []Candidate{exactA, prefixA},
			out{Rules: []string{"exact /a (1)", "regex ^/a(?:/(.*))?$ (2)"}}},
		{"not translated in front", []Candidate{rewrite, literal(2, "/spa", "/x")},
			out{Notes: []string{"src:2: /spa /x never applies: line 1 comes first and takes every request it matches; left out"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Order(tc.cands)
			var got out
			for _, r := range res.Rules {
				got.Rules = append(got.Rules, r.Kind.String()+" "+r.From+" ("+strconv.Itoa(r.Line)+")")
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

// TestOrderDiffers checks that an answer Order cannot keep is noted: a
// rule not translated in front of a later one that would answer some of
// its requests.
func TestOrderDiffers(t *testing.T) {
	spa := pattern(1, `^/app(/.*)?$`, "")
	spa.Regex, spa.What, spa.Samples = nil, "a 200 rewrite", []Request{{Path: "/app"}, {Path: "/app/x"}}
	res := Order([]Candidate{spa, pattern(2, `^/(app|web)/x$`, "/new", "/web/x")})
	var got []string
	for _, n := range res.Notes {
		got = append(got, n.String())
	}
	want := []string{"src:1: /app/x: line 1 (a 200 rewrite, not translated) applies, redirectd answers with line 2"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
