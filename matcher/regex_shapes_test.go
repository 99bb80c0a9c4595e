package matcher

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// siteShapes returns n regexes in the shapes of a real site's hand-written
// nginx map that crowd the regex tier's indexes: lowered patterns with a
// wildcard right after "/" (one chain under one key), real regexes under a
// common prefix ("/doc/") with a literal further on, classes with no
// literal (`^/[Gg][Pp][Tt]-?4.*$`), suffix-anchored ones (`\.$`, `em$`),
// (?i) and `.*$` tails; with, for each, a path it answers.
func siteShapes(n int) (exprs, paths []string) {
	for i := range n {
		var e, p string
		switch i % 10 {
		case 0:
			e, p = fmt.Sprintf(`^/.%03d-note$`, i), fmt.Sprintf("/x%03d-note", i)
		case 1:
			e, p = fmt.Sprintf(`^/.../%03d-borges\.pdf.*$`, i), fmt.Sprintf("/doc/%03d-borges.pdf#p", i)
		case 2:
			e, p = fmt.Sprintf(`^/doc/.+/Chapter-%03d$`, i), fmt.Sprintf("/doc/sicp/Chapter-%03d", i)
		case 3:
			e, p = fmt.Sprintf(`^/[Gg][Pp][Tt]-?%03d.*$`, i), fmt.Sprintf("/gpt%03d/x", i)
		case 4:
			e, p = fmt.Sprintf(`^/.+/[0-9]+\.%03dem$`, i), fmt.Sprintf("/a/b/12.%03dem", i)
		case 5:
			e, p = fmt.Sprintf(`(?i)^/Old-%03d/?$`, i), fmt.Sprintf("/OLD-%03d/", i)
		case 6:
			e, p = fmt.Sprintf(`^/Def%03d.hs$`, i), fmt.Sprintf("/Def%03dXhs", i)
		case 7:
			e, p = fmt.Sprintf(`^/doc/.+/%03d-takayama.*$`, i), fmt.Sprintf("/doc/iq/%03d-takayama.html", i)
		case 8:
			e, p = fmt.Sprintf(`^/(?<u>.*)%03d\.$`, i), fmt.Sprintf("/trailing/%03d.", i)
		case 9:
			e, p = fmt.Sprintf(`^/.é%03d$`, i), fmt.Sprintf("/ü.é%03d", i)
		}
		exprs, paths = append(exprs, e), append(paths, p)
	}
	return exprs, paths
}

// TestSiteShapes checks the regex tier against package regexp on a map
// whose indexes are crowded (more than litCrowded patterns under "/", more
// than crowded regexes under "/doc/"): every path answers the first
// regex in file order that matches it.
func TestSiteShapes(t *testing.T) {
	exprs, paths := siteShapes(400)
	var rules []Rule
	var res []*regexp.Regexp
	for i, e := range exprs {
		rules = append(rules, Rule{Kind: Regex, From: e, To: "/t", Status: 301, File: "f", Line: i + 1})
		res = append(res, regexp.MustCompile(e))
	}
	s, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var probes []string
	for _, p := range paths {
		probes = append(probes, p, p+"x", strings.ToUpper(p), p[:len(p)-1], "/é"+p[1:], p+"\n")
	}
	probes = append(probes, "/", "/doc/", "/doc/nothing/here.html", "/x", "/\u212A", "/é", "/.é")
	var m Match
	for _, p := range probes {
		want := 0
		for i, re := range res {
			if re.Match(normalizePath(nil, []byte(p))) {
				want = i + 1
				break
			}
		}
		got := 0
		if s.Lookup(nil, []byte(p), nil, &m) {
			got = m.Rule().Line
		}
		if got != want {
			t.Errorf("%q: rule %d (%s), want %d", p, got, exprOf(exprs, got), want)
		}
	}
}

func exprOf(exprs []string, line int) string {
	if line == 0 {
		return "none"
	}
	return exprs[line-1]
}

// FuzzCrowded is FuzzLowered with the fuzzer's rules among enough others of
// the same shapes to crowd every index, so that the split chains and the
// regexes filed under grams instead of their prefix are checked against
// package regexp too.
func FuzzCrowded(f *testing.F) {
	for _, s := range lowerSeeds {
		f.Add(s.rules, []byte(s.path), uint8(0))
	}
	f.Add("^/.abc$\n^/doc/.+/x$", []byte("/doc/a/x"), uint8(3))
	filler, _ := siteShapes(200) // 20 of each shape: crowded lists, and crowded lists within them
	var m Match
	f.Fuzz(func(t *testing.T, spec string, path []byte, at uint8) {
		if len(spec) > 2000 || len(path) > 2000 {
			t.Skip()
		}
		var exprs []string
		for _, e := range strings.Split(spec, "\n") {
			if _, err := regexp.Compile(e); err == nil && len(exprs) < 16 {
				exprs = append(exprs, e)
			}
		}
		k := int(at) % (len(filler) + 1)
		all := append(append(append([]string(nil), filler[:k]...), exprs...), filler[k:]...)
		var rules []Rule
		var res []*regexp.Regexp
		for i, e := range all {
			rules = append(rules, Rule{Kind: Regex, From: e, To: "/t", Status: 301, File: "f", Line: i + 1})
			res = append(res, regexp.MustCompile(e))
		}
		s, err := Compile(rules)
		if err != nil {
			t.Skip()
		}
		in := normalizePath(nil, path)
		want := 0
		for i, re := range res {
			if re.Match(in) {
				want = i + 1
				break
			}
		}
		got := 0
		if s.Lookup(nil, path, nil, &m) {
			got = m.Rule().Line
		}
		if got != want {
			t.Errorf("rules %q (at %d) on %q: rule %d (%s), want %d (%s)", spec, k, path, got, exprOf(all, got), want, exprOf(all, want))
		}
	})
}

// FuzzRejects checks that the byte and length filters never refuse an
// input that the regex matches.
func FuzzRejects(f *testing.F) {
	for _, e := range []string{`^/[Gg][Pp][Tt]-?4.5.*$`, `^/.+/[0-9]+\.[0-9]+em$`, `^/(?<u>.*)\.$`, `^/[a-z]$`,
		`(?i)^/k$`, `^/.*ð$`, `^/[^a]$`, `^/\x{FFFD}$`, `^(a|)$`, `^a*$`, `^/(?:ab){2,3}$`, `(?i)^/[a-c]s$`} {
		f.Add(e, []byte("/gpt45"))
		f.Add(e, []byte("/\u212A"))
		f.Add(e, []byte("/a/12.5em"))
	}
	f.Fuzz(func(t *testing.T, expr string, in []byte) {
		if len(expr) > 200 || len(in) > 1000 {
			t.Skip()
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			t.Skip()
		}
		p, err := compileStripped(expr, true)
		if err != nil {
			t.Skip()
		}
		if re.Match(in) && p.rejects(in) {
			t.Errorf("%q matches %q, but its filters reject it (first %v, last %v, maxLen %d)", expr, in, p.hasFirst, p.hasLast, p.maxLen)
		}
	})
}

// TestRejects checks that the filters rule out what a hand-written map's
// regexes without literals do not match.
func TestRejects(t *testing.T) {
	for _, tc := range []struct {
		expr, in string
		want     bool
	}{
		{`^/[Gg][Pp][Tt]-?4.5.*$`, "/doc/x", true},
		{`^/[Gg][Pp][Tt]-?4.5.*$`, "/GPT-4.5", false},
		{`^/.+/[0-9]+\.[0-9]+em$`, "/doc/x.html", true},
		{`^/.+/[0-9]+\.[0-9]+em$`, "/a/1.5em", false},
		{`^/[a-z]$`, "/doc", true},
		{`^/[a-z]$`, "/d", false},
		{`(?i)^/k$`, "/\u212A", false},
		{`^/.*ð$`, "/x", true},
		{`^/.*`, "/x", false},
	} {
		p, err := compileStripped(tc.expr, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.rejects([]byte(tc.in)); got != tc.want {
			t.Errorf("%q on %q: rejects = %v, want %v", tc.expr, tc.in, got, tc.want)
		}
	}
}

// TestCrowdedMissWork checks that a miss on a crowded map runs few
// regexes: those under a crowded prefix are filed under a rarer literal,
// and those without any are ruled out by their first or last byte.
func TestCrowdedMissWork(t *testing.T) {
	exprs, _ := siteShapes(400)
	var rules []Rule
	for i, e := range exprs {
		rules = append(rules, Rule{Kind: Regex, From: e, To: "/t", Status: 301, File: "f", Line: i + 1})
	}
	s, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	var m Match
	for _, p := range []string{"/doc/nothing/here.html", "/about", "/gpt/x"} {
		if s.Lookup(nil, []byte(p), nil, &m) {
			t.Fatalf("%q: a hit", p)
		}
		if n := len(m.cands); n > 4 {
			t.Errorf("%q: %d regexes are candidates, want at most 4", p, n)
		}
	}
}

// BenchmarkLookupShapes is BenchmarkLookupGwern on a map of siteShapes
// (4,000 regexes), for clones without the real one: a lookup plus its
// Location for the first regex's path, the last one's, and a miss.
func BenchmarkLookupShapes(b *testing.B) {
	exprs, paths := siteShapes(4000)
	var rules []Rule
	for i, e := range exprs {
		rules = append(rules, Rule{Kind: Regex, From: e, To: "/t", Status: 301, RequestURI: true, File: "f", Line: i + 1})
	}
	s, err := Compile(rules)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name, path string
		line       int
	}{
		{"hit-first", paths[0], 1},
		{"hit-late", paths[len(paths)-4], len(paths) - 3},
		{"miss", "/doc/nothing/here-at-all.html", 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var m Match
			buf := make([]byte, 0, 256)
			path := []byte(bc.path)
			got := 0
			if s.Lookup(nil, path, nil, &m) {
				got = m.Rule().Line
			}
			if got != bc.line {
				b.Fatalf("%s: rule %d, want %d", bc.path, got, bc.line)
			}
			b.ReportAllocs()
			for b.Loop() {
				if s.Lookup(nil, path, nil, &m) {
					buf = m.AppendLocation(buf[:0], nil)
				}
			}
		})
	}
}
