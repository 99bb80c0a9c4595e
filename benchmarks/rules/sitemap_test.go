package rules

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Entry i does not depend on the corpus size, and two calls agree.
func TestSitemapDeterministic(t *testing.T) {
	small, big := Sitemap(300), Sitemap(1000)
	if diff := cmp.Diff(small, big[:300]); diff != "" {
		t.Errorf("Sitemap(300) is not the start of Sitemap(1000) (-small +big):\n%s", diff)
	}
	if diff := cmp.Diff(big, Sitemap(1000)); diff != "" {
		t.Errorf("two calls differ:\n%s", diff)
	}
}

// The corpus has the mix of the real map: about 30 % of keys
// end in .*$, 18 % are ^literal$, 3 % have no literal prefix but /.
func TestSitemapShares(t *testing.T) {
	shapes := map[SitemapShape]int{}
	var dotStarEnd, ci, escaped int
	for _, e := range Sitemap(SitemapSize) {
		shapes[e.Shape]++
		if strings.HasSuffix(e.Key, ".*$") {
			dotStarEnd++
		}
		if strings.HasPrefix(e.Key, "~*") {
			ci++
		}
		if strings.Contains(e.Key, `\)`) {
			escaped++
		}
	}
	want := map[SitemapShape]int{ShapeDotStar: 30, ShapeExact: 18, ShapeSlashOpt: 12, ShapePrefix: 14, ShapeWildcard: 6,
		ShapeCIExact: 4, ShapeCIDotStar: 2, ShapeCapture: 5, ShapeGroup: 6, ShapeSlashOnly: 3}
	for s, pct := range want {
		// Exact per block of 100, but for the three fixed first entries.
		if got := shapes[s]; got < pct*SitemapSize/100-3 || got > pct*SitemapSize/100+3 {
			t.Errorf("%s: %d keys, want %d %% of %d", s, got, pct, SitemapSize)
		}
	}
	if pct := dotStarEnd * 100 / SitemapSize; pct < 29 || pct > 34 {
		t.Errorf("%d %% of keys end in .*$, want about 30", pct)
	}
	if ci == 0 || escaped == 0 {
		t.Errorf("%d ~* keys, %d keys with \\): want some of each", ci, escaped)
	}
}

// literalPrefix is the bytes after ^ up to the first metacharacter (a .
// counts: it is a wildcard) or quantified byte, lower-cased for (?i) keys.
func literalPrefix(re string) (string, bool) {
	ci := strings.HasPrefix(re, "(?i)")
	re = strings.TrimPrefix(strings.TrimPrefix(re, "(?i)"), "^")
	if i := strings.IndexAny(re, `.[]()*+?{}|\$^`); i >= 0 {
		if strings.IndexByte("*+?{", re[i]) >= 0 { // the byte before is optional
			i--
		}
		re = re[:i]
	}
	if ci {
		re = strings.ToLower(re)
	}
	return re, ci
}

// Every entry's Path is answered by that entry and by no earlier key, with
// its Location; the miss paths match no key. Checked with package regexp,
// whose syntax the corpus keeps to (as it keeps to what PCRE reads alike).
func TestSitemapFirstMatch(t *testing.T) {
	const n = 1000
	es := Sitemap(n)
	res := make([]*regexp.Regexp, n)
	exact, folded := map[string][]int{}, map[string][]int{} // literal prefix -> entries
	for i, e := range es {
		re, err := regexp.Compile(e.Regex())
		if err != nil {
			t.Fatalf("entry %d: %s: %v", i, e.Key, err)
		}
		res[i] = re
		p, ci := literalPrefix(e.Regex())
		if ci {
			folded[p] = append(folded[p], i)
		} else {
			exact[p] = append(exact[p], i)
		}
	}
	// first is the first key matching path: only keys whose literal
	// prefix path starts with can match it.
	first := func(path string) int {
		best := -1
		lower := strings.ToLower(path)
		for l := 0; l <= len(path); l++ {
			for _, i := range append(exact[path[:l]], folded[lower[:l]]...) {
				if (best < 0 || i < best) && res[i].MatchString(path) {
					best = i
				}
			}
		}
		return best
	}
	for i, e := range es {
		if got := first(e.Path); got != i {
			t.Fatalf("entry %d (%s): path %q is answered by entry %d", i, e.Key, e.Path, got)
		}
		m := res[i].FindStringSubmatchIndex(e.Path)
		if loc := string(res[i].ExpandString(nil, e.Target, e.Path, m)); loc != e.Location {
			t.Errorf("entry %d (%s): %q redirects to %q, Location says %q", i, e.Key, e.Path, loc, e.Location)
		}
		if first(e.Location) >= 0 && !strings.HasPrefix(e.Location, "https://") {
			t.Errorf("entry %d: its Location %q is a key's match too: a chain", i, e.Location)
		}
	}
	misses := []string{SitemapMiss}
	for k := range 100 {
		misses = append(misses, SitemapMissN(k))
	}
	for _, p := range misses {
		if got := first(p); got >= 0 {
			t.Errorf("miss path %q matches entry %d (%s)", p, got, es[got].Key)
		}
	}
	if last := SitemapLast(n); last.Shape != ShapeDotStar || first(last.Path) < n-50 {
		t.Errorf("SitemapLast(%d) = %+v: not a ^lit.*$ key near the end", n, last)
	}
}

// The map file is the site's form, and nginx's unescaping inside quotes
// (\", \', \\, \t, \r, \n) leaves every key as written.
func TestWriteSitemapMap(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSitemapMap(&b, 3); err != nil {
		t.Fatal(err)
	}
	want := "\"~^/Definition.hs$\" \"/static/build/Definition.hs\";\n" +
		"\"~^/docs/iq/2015-strenze.pdf.*$\" \"/doc/iq/2015-strenze.pdf\";\n" +
		"\"~^/GPT-3\\).*$\" \"/gpt-3\";\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("map file (-want +got):\n%s", diff)
	}
	for i, e := range Sitemap(SitemapSize) {
		for _, s := range []string{e.Key, e.Target} {
			if strings.ContainsAny(s, "\"' \t;{}#") || strings.Contains(s, `\\`) || strings.Contains(s, `\t`) ||
				strings.Contains(s, `\r`) || strings.Contains(s, `\n`) {
				t.Fatalf("entry %d: %q would not reach nginx as written", i, s)
			}
		}
	}
}
