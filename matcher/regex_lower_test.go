package matcher

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLowerShapes checks which regexes are answered by the literal tables
// and what they are lowered to; everything else keeps its program.
func TestLowerShapes(t *testing.T) {
	type lowered struct {
		Pat     string
		Wild    []uint16
		Tail    tailKind
		Fold    bool
		Capture bool
	}
	tests := []struct {
		expr string
		want *lowered // nil: not lowered
	}{
		{`^/Definition.hs$`, &lowered{Pat: "/Definition.hs", Wild: []uint16{11}, Tail: tailEnd}},
		{`^/a\.b$`, &lowered{Pat: "/a.b", Tail: tailEnd}},
		{`^/doc/2015.pdf.*$`, &lowered{Pat: "/doc/2015.pdf", Wild: []uint16{9}, Tail: tailAnyEnd}},
		{`^/GPT-3\).*$`, &lowered{Pat: "/GPT-3)", Tail: tailAnyEnd}},
		{`^/old`, &lowered{Pat: "/old", Tail: tailNone}},
		{`^/old.*`, &lowered{Pat: "/old", Tail: tailAny}},
		{`^/old/?$`, &lowered{Pat: "/old", Tail: tailSlashEnd}},
		{`^/blog/(.*)$`, &lowered{Pat: "/blog/", Tail: tailAnyEnd, Capture: true}},
		{`^/blog/(?P<rest>.*)`, &lowered{Pat: "/blog/", Tail: tailAny, Capture: true}},
		{`(?i)^/Old-Page$`, &lowered{Pat: "/old-page", Tail: tailEnd, Fold: true}},
		{`(?i)^/2015/$`, &lowered{Pat: "/2015/", Tail: tailEnd}},
		{`^/café$`, &lowered{Pat: "/café", Tail: tailEnd}},
		{`(?i)^/café$`, nil}, // a non-ASCII letter folds to non-ASCII
		{`^/(?i:a)b$`, nil},  // mixed case modes
		{`^/a(.*?)`, nil},    // lazy without $: matches nothing
		{`^/a(.*?)$`, &lowered{Pat: "/a", Tail: tailAnyEnd, Capture: true}},
		{`/old$`, nil},        // unanchored
		{`^/a/(\d+)$`, nil},   // a class
		{`^/(a|b)$`, nil},     // alternation
		{`^/a.+$`, nil},       // .+ is not lowered
		{`^/(a)(.*)$`, nil},   // more groups
		{`^$`, nil},           // no literal
		{`^/a$x`, nil},        // something after $
		{`(?s)^/a.*$`, nil},   // . matching newlines
		{`^/a\x{FFFD}$`, nil}, // would match an invalid byte
		{`^/a$|^/b$`, nil},    // alternation at the top
		{`^/a(?:/)?$`, &lowered{Pat: "/a", Tail: tailSlashEnd}},
	}
	for _, tc := range tests {
		re, err := syntax.Parse(tc.expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		var got *lowered
		if p := lower(re, tc.expr); p != nil {
			got = &lowered{Pat: p.pat, Wild: p.wild, Tail: p.tail, Fold: p.fold, Capture: p.capture}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("lower(%q) (-want +got):\n%s", tc.expr, diff)
		}
	}
}

// lowerSeeds are rule sets shaped like hand-written nginx maps, one
// regex a line, with paths to try.
var lowerSeeds = []struct{ rules, path string }{
	{"^/Definition.hs$\n^/doc/iq/2015-strenze.pdf.*$\n^/GPT-3\\).*$", "/doc/iq/2015-strenze.pdf#x"},
	{"^/Definition.hs$\n^/Definition", "/DefinitionXhs"},
	{"(?i)^/Old/?$\n^/old/$\n^/o", "/OLD/"},
	{"(?i)^/des\n^/.*k$", "/DES\u212A"},
	{"(?i)^/(.*)s$\n(?i)^/a(.*)$", "/A\u017Fb"},
	{"^/a/(.*)$\n^/.*/foo\\.html$\n^/[0-9]+-old$", "/x/foo.html"},
	{"^/a.*$\n^/a.*\n^/a", "/ab\ncd"},
	{"^/p.b$\n^/p.b.*", "/p\xffb"},
	{"\\.php$\n^/blog/(\\d+)/(.*)$\n^/blog/", "/blog/12/x.php"},
	{"^/(.*)$\n^/a$", "/a"},
	{"^/a.c/(.*)\n^/abc/x$", "/abc/x"},
	{"^/blog\\b(\\d+)x$\n^/blog(\\d+)(x)$", "/blog12x"},
	{"^/blog/(?m:^)x\n^/blog/(a|b)+(?P<n>c)?$", "/blog/abc"},
}

// FuzzLowered checks the regex tier (lowered tables, gram filter and the
// backtracker together) against package regexp: for any rules and any
// path or target, Lookup answers the first rule in file order whose regex
// matches, with the same captures.
func FuzzLowered(f *testing.F) {
	for _, s := range lowerSeeds {
		f.Add(s.rules, []byte(s.path), false)
		f.Add(s.rules, []byte(s.path+"?x=1"), true)
	}
	var m Match // reused, as an event loop reuses its own
	f.Fuzz(func(t *testing.T, spec string, target []byte, requestURI bool) {
		if len(spec) > 2000 || len(target) > 2000 {
			t.Skip()
		}
		var rules []Rule
		var res []*regexp.Regexp
		for _, expr := range strings.Split(spec, "\n") {
			re, err := regexp.Compile(expr)
			if err != nil || len(rules) >= 16 {
				continue
			}
			to := "/t/$0"
			if re.NumSubexp() >= 1 {
				to += "/$1"
			}
			rules = append(rules, Rule{Kind: Regex, From: expr, To: to, Status: 301, RequestURI: requestURI,
				QueryString: QueryDrop, File: "f", Line: len(rules) + 1})
			res = append(res, re)
		}
		s, err := Compile(rules)
		if err != nil {
			t.Skip() // too big a program, and the like
		}
		path, query := target, []byte(nil)
		if requestURI {
			if i := strings.IndexByte(string(target), '?'); i >= 0 {
				path, query = target[:i], target[i+1:]
			}
		}
		in := normalizePath(nil, path)
		if requestURI {
			in = target
		}
		want, wantLoc := 0, ""
		for i, re := range res {
			if loc := re.FindSubmatchIndex(in); loc != nil {
				want = i + 1
				wantLoc = "/t/" + string(in[loc[0]:loc[1]])
				if len(loc) > 2 {
					wantLoc += "/"
					if loc[2] >= 0 {
						wantLoc += string(in[loc[2]:loc[3]])
					}
				}
				break
			}
		}
		got, gotLoc := 0, ""
		if s.Lookup(nil, path, query, &m) {
			got, gotLoc = m.Rule().Line, string(m.AppendLocation(nil, nil))
		}
		if got != want || gotLoc != wantLoc {
			t.Errorf("rules %q on %q: got rule %d %q, want rule %d %q", spec, target, got, gotLoc, want, wantLoc)
		}
	})
}

// TestLowerFastSpellings checks that the spellings of hand-written maps
// take the fast path, and agree with the parsed one.
func TestLowerFastSpellings(t *testing.T) {
	for _, expr := range []string{`^/Definition.hs$`, `^/doc/iq/2015-strenze.pdf.*$`, `^/GPT-3\).*$`,
		`^/old/?$`, `^/old/`, `^/blog/(.*)$`, `(?i)^/Old-Page$`, `(?i)^/Old.*$`, `^/a\.b\-c$`, `^/café$`,
		`^/a.*`, `^/a(.*)`, `^/a(.*?)$`, `^/a.*?$`} {
		p, _ := lowerFast(expr)
		if p == nil {
			t.Errorf("lowerFast(%q) = nil, want the fast path", expr)
			continue
		}
		checkLowerFast(t, expr)
	}
}

// checkLowerFast compares lowerFast with lower over the parsed expression.
func checkLowerFast(t *testing.T, expr string) {
	t.Helper()
	fast, ncap := lowerFast(expr)
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		if fast != nil {
			t.Errorf("lowerFast(%q) lowered what syntax.Parse refuses: %v", expr, err)
		}
		return
	}
	if fast == nil {
		return // the fast path may leave any expression to the parser
	}
	slow := lower(re, expr)
	if slow == nil {
		t.Fatalf("lowerFast(%q) = %+v, but the parsed expression is not lowered", expr, fast)
	}
	if diff := cmp.Diff(slow, fast, cmp.AllowUnexported(litPattern{})); diff != "" {
		t.Errorf("lowerFast(%q) (-parsed +fast):\n%s", expr, diff)
	}
	if ncap != re.MaxCap() {
		t.Errorf("lowerFast(%q) counts %d groups, want %d", expr, ncap, re.MaxCap())
	}
}

// FuzzLowerFast checks that the fast path agrees with parsing for any
// expression.
func FuzzLowerFast(f *testing.F) {
	for _, s := range lowerSeeds {
		for _, expr := range strings.Split(s.rules, "\n") {
			f.Add(expr)
		}
	}
	for _, expr := range []string{`^/a\*$`, `^/a\.?$`, `(?i)^/\x{212A}$`, `^/a{2}$`, "^/a\xff$", `^/a..*$`, `^/a\$`} {
		f.Add(expr)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if len(expr) > 300 {
			t.Skip()
		}
		checkLowerFast(t, expr)
	})
}
