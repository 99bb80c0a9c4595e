package matcher

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// budgetSeeds are rule sets and inputs for FuzzRegexBudget: each empty-
// width condition, stripped prefixes, folded and non-ASCII classes,
// invalid UTF-8, and candidates that match at the end only.
var budgetSeeds = []struct{ rules, path string }{
	{"[a-z]1[0-9]*\\.ht(m|ml)?\n[a-z]2[0-9]*\\.ht(m|ml)?\n^/x.*y$", "/.ht.ht.b2.htm"},
	{"^/a/(.*)/b$\n^/a/.*c$\n^/a/(x|y)+$", "/a/xyxy"},
	{"\\bfoo\\b\n\\Bbar\n(?m)^baz$", "/x/foo/"},
	{"\\bfoo\\b\n\\Bbar\n(?m)^baz$", "/xbar"},
	{"(?i)^/straße/.*k$\n(?i)ǅ+", "/STRASSE/\u212a"},
	{"(?i)^/straße/.*k$\n(?i)ǅ+", "/Straße/xK"},
	{"^/\\x{fffd}+$\n^/[^a]$", "/\xff\xfe"},
	{"^/doc/.+/Ontological-pantheism$\n^/.*ichiban-project.ucoz.*$", "/doc/x/ichiban-project/ucoz/"},
	{"a$\nb\\z\n(?s)x.y", "/x\ny"},
	{"^/(?:)$\n^$\n$", "/"},
}

// FuzzRegexBudget checks that the one pass that answers the candidates
// left past the work budget (regex_dfa.go) answers as running them one by
// one: the first matching rule in file order, and its match, as package
// regexp finds them.
func FuzzRegexBudget(f *testing.F) {
	for _, s := range budgetSeeds {
		f.Add(s.rules, []byte(s.path))
	}
	var one, pass, full Match // reused, as an event loop reuses its own
	pass.budget, full.budget = -1, -1
	full.dfa.capStates = 3 // starting over all the time
	f.Fuzz(func(t *testing.T, spec string, path []byte) {
		if len(spec) > 2000 || len(path) > 2000 {
			t.Skip()
		}
		var rules []Rule
		var res []*regexp.Regexp
		for _, expr := range strings.Split(spec, "\n") {
			re, err := regexp.Compile(expr)
			if err != nil || len(rules) >= 16 {
				continue
			}
			rules = append(rules, Rule{Kind: Regex, From: expr, To: "/t/$0", Status: 301, File: "f", Line: len(rules) + 1})
			res = append(res, re)
		}
		s, err := Compile(rules)
		if err != nil {
			t.Skip()
		}
		in := normalizePath(nil, path)
		want := "miss"
		for i, re := range res {
			if loc := re.FindIndex(in); loc != nil {
				want = fmt.Sprintf("%d %v", i+1, loc)
				break
			}
		}
		answer := func(m *Match) string {
			if !s.Lookup(nil, path, nil, m) {
				return "miss"
			}
			return fmt.Sprintf("%d %v", m.Rule().Line, m.caps[:2])
		}
		if diff := cmp.Diff(want, answer(&pass)); diff != "" {
			t.Errorf("rules %q on %q, in one pass (-regexp +got):\n%s", spec, path, diff)
		}
		if diff := cmp.Diff(want, answer(&full)); diff != "" {
			t.Errorf("rules %q on %q, in one pass with a full cache (-regexp +got):\n%s", spec, path, diff)
		}
		if diff := cmp.Diff(want, answer(&one)); diff != "" {
			t.Errorf("rules %q on %q, one by one (-regexp +got):\n%s", spec, path, diff)
		}
	})
}

// TestOnePassAllocs checks that the lookups of the crafted paths, one
// pass and all (and with every candidate sent to it), allocate nothing
// once the Match has grown.
func TestOnePassAllocs(t *testing.T) {
	for _, tc := range craftedSets(t) {
		for _, budget := range []int{0, -1} {
			var m Match
			m.budget = budget
			buf := make([]byte, 0, 512)
			hitPath := append(append([]byte(nil), tc.path...), "/z1.htm"...)
			for _, path := range [][]byte{tc.path, hitPath} {
				allocs := testing.AllocsPerRun(20, func() {
					if tc.set.Lookup(nil, path, nil, &m) {
						buf = m.AppendLocation(buf[:0], nil)
					}
				})
				if allocs != 0 {
					t.Errorf("%s (budget %d): %v allocations per lookup, want 0", tc.name, budget, allocs)
				}
			}
		}
	}
}

// TestOnePassCacheFull runs the one pass with many classes and its cache
// capped at two states, so that it starts over on almost every character:
// the answer must not change.
func TestOnePassCacheFull(t *testing.T) {
	var rules []Rule
	var b strings.Builder
	for i := range 200 {
		// Each rule's own characters make classes of their own.
		c := rune(0x4e00 + 3*i)
		rules = append(rules, Rule{Kind: Regex, From: fmt.Sprintf(`[%c-%c]x%d`, c, c+1, i), To: "/t", Status: 301, File: "f", Line: i + 1})
		fmt.Fprintf(&b, "/%cy%d", c, i)
	}
	s, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	path := []byte(b.String() + "/\u4e00x0")
	var pass, each Match
	pass.budget, each.budget = -1, 1<<30
	pass.dfa.capStates = 2
	if !s.Lookup(nil, path, nil, &pass) || !s.Lookup(nil, path, nil, &each) {
		t.Fatal("miss")
	}
	if pass.Rule().Line != 1 || each.Rule().Line != 1 || !pass.OnePass() {
		t.Errorf("lines %d and %d, one pass %v; want 1, 1, true", pass.Rule().Line, each.Rule().Line, pass.OnePass())
	}
	if n := len(s.any.regex.real.cls.starts); n < 400 {
		t.Errorf("%d classes, want the rules' 400 and more", n)
	}
}
