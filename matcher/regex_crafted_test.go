package matcher

import (
	"fmt"
	"strings"
	"testing"
)

// craftedSets are rule sets an attacker can aim a path at: regexes that
// share their literals' shape, and a path made of those literals.
func craftedSets(tb testing.TB) []struct {
	name  string
	set   *Set
	path  []byte
	cands int // the most candidates the lookup may try
} {
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
	var grams, loose []Rule
	for i := range 300 {
		grams = append(grams, Rule{Kind: Regex, From: fmt.Sprintf(`^/.*\.ht%d(m|ml)?$`, i), To: "/x", Status: 301, File: "f", Line: i + 1})
		loose = append(loose, Rule{Kind: Regex, From: fmt.Sprintf(`[a-z]%d[0-9]*\.ht(m|ml)?`, i), To: "/x", Status: 301, File: "f", Line: i + 1})
	}
	compile := func(rules []Rule) *Set {
		s, err := Compile(rules)
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}
	a, g, l := compile(articles), compile(grams), compile(loose)
	return []struct {
		name  string
		set   *Set
		path  []byte
		cands int
	}{
		// Only the regex whose ending the path has may run.
		{"literals of 500 regexes", a, []byte(b.String()[:8000] + "article-0499.html"), 1},
		{"literals of 500 regexes, no ending", a, []byte(b.String()[:8000]), 0},
		// 300 regexes under one gram, which the path repeats 2,666 times:
		// each is a candidate once.
		{"one gram repeated", g, []byte("/" + strings.Repeat(".ht", 2666)), 300},
		// Unanchored, each of the 300 runs over the whole path: the
		// work is linear in the path for each, 300 times over (no
		// budget bounds it yet).
		{"one gram repeated, unanchored", l, []byte("/" + strings.Repeat(".ht", 2666)), 300},
	}
}

// TestCraftedPathWork bounds what a path crafted from the rules' literals
// makes a lookup try: a regex is a candidate at most once, and one whose
// literal ending the path lacks is not one.
func TestCraftedPathWork(t *testing.T) {
	for _, tc := range craftedSets(t) {
		var m Match
		tc.set.Lookup(nil, tc.path, nil, &m)
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
