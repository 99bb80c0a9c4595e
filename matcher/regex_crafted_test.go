package matcher

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// craftedSet is a rule set an attacker can aim a path at: regexes that
// share their literals' shape, and a path made of those literals.
type craftedSet struct {
	name string
	set  *Set
	path []byte
	// cands is the most candidates the lookup may gather, runs the most
	// it may run on the backtracker, passes the one-pass runs it makes.
	cands, runs, passes int
}

func craftedSets(tb testing.TB) []craftedSet {
	tb.Helper()
	var articles []Rule
	for i := range 500 {
		articles = append(articles, Rule{Kind: Regex, From: fmt.Sprintf(`^/(.*)/article-%04d\.html$`, i), To: "/x/$1", Status: 301, File: "f", Line: i + 1})
	}
	var b strings.Builder
	b.WriteString("/")
	for i := 0; b.Len() < 8000; i++ {
		fmt.Fprintf(&b, "article-%04d.html/", i%500)
	}
	var grams, loose, prefixed []Rule
	var pb strings.Builder
	pb.WriteString("/y")
	for i := range 300 {
		grams = append(grams, Rule{Kind: Regex, From: fmt.Sprintf(`^/.*\.ht%d(m|ml)?$`, i), To: "/x", Status: 301, File: "f", Line: i + 1})
		loose = append(loose, Rule{Kind: Regex, From: fmt.Sprintf(`[a-z]%d[0-9]*\.ht(m|ml)?`, i), To: "/x", Status: 301, File: "f", Line: i + 1})
		// "/x" is too short to file them under: each goes under a
		// gram of its page number.
		prefixed = append(prefixed, Rule{Kind: Regex, From: fmt.Sprintf(`^/x(.*)/p%03d/.*$`, i), To: "/x", Status: 301, File: "f", Line: i + 1})
		fmt.Fprintf(&pb, "/p%03d/", i)
	}
	compile := func(rules []Rule) *Set {
		s, err := Compile(rules)
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}
	a, g, l, p := compile(articles), compile(grams), compile(loose), compile(prefixed)
	return []craftedSet{
		// Only the regex whose ending the path has may run.
		{"literals of 500 regexes", a, []byte(b.String()[:8000] + "/article-0499.html"), 1, 1, 0},
		{"literals of 500 regexes, no ending", a, []byte(b.String()[:8000]), 0, 0, 0},
		// 300 regexes under one gram, which the path repeats 2,666 times:
		// each is a candidate once, and fails on its ending.
		{"one gram repeated", g, []byte("/" + strings.Repeat(".ht", 2666)), 300, 0, 0},
		// Unanchored, each would run over the whole path, which holds
		// every literal they need: past the work budget the rest are
		// answered in one pass.
		{"one gram repeated, unanchored", l, []byte("/" + strings.Repeat("-0123456789.ht", 571)), 300, 2, 1},
		// Their grams are all in the path, their beginning is not.
		{"literals after a short prefix", p, []byte(pb.String()), 0, 0, 0},
	}
}

// TestCraftedPathWork bounds what a path crafted from the rules' literals
// makes a lookup do: a regex is a candidate at most once, one whose
// literal beginning or ending the path lacks is not one, each runs at most
// once, and past the work budget the rest are answered in one pass; the
// answer is the one running every candidate one by one gives.
func TestCraftedPathWork(t *testing.T) {
	for _, tc := range craftedSets(t) {
		var m, each Match
		each.budget = 1 << 30
		hit := tc.set.Lookup(nil, tc.path, nil, &m)
		if n := len(m.cands); n > tc.cands {
			t.Errorf("%s: %d candidates, want at most %d", tc.name, n, tc.cands)
		}
		seen := map[*rule]bool{}
		for _, r := range m.cands {
			if seen[r] {
				t.Errorf("%s: line %d is a candidate twice", tc.name, r.Line)
			}
			seen[r] = true
		}
		if m.runs > tc.runs || m.passes != tc.passes {
			t.Errorf("%s: %d runs and %d passes, want at most %d and %d", tc.name, m.runs, m.passes, tc.runs, tc.passes)
		}
		answer := func(hit bool, m *Match) string {
			if !hit {
				return "miss"
			}
			return fmt.Sprint(m.Rule().Line, m.caps[:m.rule.ncaps])
		}
		if diff := cmp.Diff(answer(tc.set.Lookup(nil, tc.path, nil, &each), &each), answer(hit, &m)); diff != "" {
			t.Errorf("%s: answer differs from running each candidate (-each +got):\n%s", tc.name, diff)
		}
	}
}

// TestRegexRunsOnce checks that the winner of the rules compared with the
// path is not run again when rules compared with the target were tried
// after it (they match into other captures).
func TestRegexRunsOnce(t *testing.T) {
	s, err := Compile([]Rule{
		{Kind: Regex, From: `^/a/(\d+)/b.*y=(\d+)z`, To: "/q/$1/$2", Status: 301, RequestURI: true, File: "f", Line: 1},
		{Kind: Regex, From: `^/a/(\d+)/b`, To: "/n/$1", Status: 301, File: "f", Line: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	var m Match
	if !s.Lookup(nil, []byte("/a/12/b"), []byte("y=5x&z"), &m) {
		t.Fatal("miss")
	}
	if got := string(m.AppendLocation(nil, nil)); got != "/n/12" || m.runs != 2 {
		t.Errorf("Location %q after %d runs, want /n/12 after 2", got, m.runs)
	}
}

// BenchmarkCraftedPath is a lookup of each crafted path: the CPU a request
// aimed at the regex tier costs.
func BenchmarkCraftedPath(b *testing.B) {
	for _, tc := range craftedSets(b) {
		b.Run(strings.ReplaceAll(tc.name, " ", "-"), func(b *testing.B) {
			var m Match
			b.ReportAllocs()
			for b.Loop() {
				tc.set.Lookup(nil, tc.path, nil, &m)
			}
		})
	}
}
