package matcher

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// backtrackCases pairs patterns with inputs; each input's expected result is
// whatever regexp.FindSubmatchIndex says, since the port must agree with it
// exactly.
var backtrackCases = []struct {
	name    string
	pattern string
	inputs  []string
}{
	{"redirect rule", `^/blog/(\d+)/(.*)$`, []string{"/blog/12/a-b", "/blog/12/", "/blog//x", "/blog/12", "x/blog/1/2", "/blog/1/a\nb"}},
	{"regex-499", `^/regex/499/(\d+)/(.*)$`, []string{"/regex/499/123/abc", "/regex/498/123/abc", "/regex/499/x/abc"}},
	{"unanchored", `/(\d+)/`, []string{"/a/12/b/34/", "no digits", "/1/", "//", ""}},
	{"unanchored literal prefix", `abc(d*)`, []string{"xxabcabcdd", "ab", "abc", "aabcd"}},
	{"end anchor only", `(\w+)$`, []string{"foo bar", "foo bar ", "", "x"}},
	{"\\A and \\z", `\A/a(/b)?\z`, []string{"/a", "/a/b", "/a/b/", "x/a"}},
	{"alternation order", `(a|ab)(c|bcd)(d*)`, []string{"abcd", "abcdd", "acd", "xabcd"}},
	{"alternation of literals", `^/(?:old|legacy|archive)/(.+)$`, []string{"/old/x", "/legacy/", "/archive/a/b", "/other/x"}},
	{"optional group unset", `^/a(/b)?(/c)?$`, []string{"/a", "/a/b", "/a/c", "/a/b/c", "/a/c/b"}},
	{"group in failed branch", `(a)|(b)`, []string{"a", "b", "cb", "c"}},
	{"nested groups", `((a)(b(c)?))+`, []string{"ab", "abcab", "abcabc", "xx"}},
	{"repeated group keeps last", `(?:(\w)\.)*`, []string{"a.b.c.", "a.b", ""}},
	{"greedy", `^(a+)(a*)$`, []string{"aaaa", "a", ""}},
	{"non-greedy", `^(a+?)(a*)$`, []string{"aaaa", "a"}},
	{"non-greedy star unanchored", `<(.*?)>`, []string{"<a><b>", "<>", "<a", "x<y>z<w>"}},
	{"non-greedy question", `(a??)(a*)`, []string{"aaa", ""}},
	{"counted repeat", `^(\d{2,4})-(\d{1,})$`, []string{"12-3", "12345-6", "1234-", "1-2"}},
	{"word boundary", `\b(\w+)\b`, []string{"  hello world", "!!", "a", "é"}},
	{"not word boundary", `\B(\w)\B`, []string{"abc", "ab", "a"}},
	{"dollar without multiline", `a$`, []string{"a\n", "a", "ba\nb"}},
	{"multiline", `(?m)^(\w+)$`, []string{"x y\nfoo\nbar", "\n\nz", "a b\n"}},
	{"multiline begin", `(?m)^b`, []string{"a\nb", "ab"}},
	{"dot and newline", `a.c`, []string{"a\nc", "abc"}},
	{"dot matches newline with s", `(?s)a(.)c`, []string{"a\nc", "abc"}},
	{"unicode class", `(\p{Greek}+)(\p{L}*)`, []string{"abc αβγdef", "ΩΩ", "none", "π"}},
	{"unicode literal", `^/café/(.)$`, []string{"/café/é", "/café/e", "/cafe/x"}},
	{"negated class", `([^/]+)/([^/]*)$`, []string{"a/b/c", "/", "abc", "a//"}},
	{"case insensitive", `(?i)^/Blog/(POST)s?$`, []string{"/blog/post", "/BLOG/Posts", "/blog/pot", "/ſblog/post"}},
	{"case insensitive unicode", `(?i)(σ+)`, []string{"ΣσςX", "x"}},
	{"named groups", `^/(?P<year>\d{4})/(?P<slug>[a-z-]+)$`, []string{"/2024/hello-world", "/24/x"}},
	{"empty pattern", ``, []string{"", "abc"}},
	{"empty group", `()`, []string{"", "x"}},
	{"empty match star", `(a*)`, []string{"", "b", "baa", "aab"}},
	{"empty alternative", `(|a)+`, []string{"aa", ""}},
	{"star of empty", `(a*)*`, []string{"b", "aab"}},
	{"plus of star", `(a*)+$`, []string{"b", "aab"}},
	{"group dropped by simplify", `(a){0}b(c)`, []string{"bc", "abc", "b"}},
	{"impossible", `a\Aq`, []string{"aq", ""}},
	{"impossible class", `[^\x00-\x{10FFFF}]`, []string{"a", ""}},
	{"invalid utf8 input", `(.)(.)`, []string{"\xff\xfe", "a\xc3", "\xe2\x82", "\xe2\x82\xac"}},
	{"invalid utf8 matches RuneError", `^(\x{FFFD}+)(.*)$`, []string{"\xff\xfex", "\xef\xbf\xbdy", "ok"}},
	{"invalid utf8 boundary", `\b(.)`, []string{"\xffa", "a\xff", "\xc3\xa9a"}},
	{"any byte class", `[\x00-\x{10FFFF}]+`, []string{"ab\xffc", "\n"}},
	{"literal prefix in invalid utf8", `€(\d)`, []string{"\xe2\xe2\x82\xac1", "\xe2\x82€2"}},
	{"query string", `^/search\?q=([^&]*)(?:&page=(\d+))?$`, []string{"/search?q=go", "/search?q=go&page=2", "/search?q=&page=x"}},
	{"long alternation", `^/(a|b|c|d|e|f|g|h)(?:/(\d+))?/?$`, []string{"/e/9/", "/h", "/i/1"}},
	{"catastrophic for naive backtracking", `^(a+)+$`, []string{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "aaaa"}},
}

func TestBacktrackMatchesRegexp(t *testing.T) {
	var s Scratch // shared across cases, so reuse of a grown Scratch is tested too
	for _, tc := range backtrackCases {
		t.Run(tc.name, func(t *testing.T) {
			re := regexp.MustCompile(tc.pattern)
			p, err := compileProgram(tc.pattern)
			if err != nil {
				t.Fatalf("compileProgram(%q): %v", tc.pattern, err)
			}
			if got, want := p.numSubexp(), re.NumSubexp(); got != want {
				t.Errorf("numSubexp() = %d, want %d", got, want)
			}
			for _, in := range tc.inputs {
				want := re.FindSubmatchIndex([]byte(in))
				if got := backtrackFind(t, p, []byte(in), &s); !cmp.Equal(got, want) {
					t.Errorf("%q on %q: mismatch with regexp (-got +want):\n%s", tc.pattern, in, cmp.Diff(got, want))
				}
			}
		})
	}
}

// backtrackFind adapts match to FindSubmatchIndex's shape (nil on no match)
// for comparison, and checks that a failed match leaves caps all -1.
func backtrackFind(t testing.TB, p *program, input []byte, s *Scratch) []int {
	t.Helper()
	caps := make([]int, 2*(p.numSubexp()+1))
	for i := range caps {
		caps[i] = 1 << 20 // garbage that match must overwrite
	}
	if !p.match(input, caps, s) {
		for i, c := range caps {
			if c != -1 {
				t.Errorf("no match on %q, but caps[%d] = %d, want -1", input, i, c)
			}
		}
		return nil
	}
	return caps
}

func TestBacktrackLongInput(t *testing.T) {
	// Far past regexp's 256 Ki-bit backtrack limit (where it switches to the
	// NFA): the port must not stop at that bound and must still agree.
	in := make([]byte, 16<<10)
	for i := range in {
		in[i] = "ab/"[i%3]
	}
	in[len(in)-2] = '9'
	var s Scratch
	for _, pat := range []string{`(\d)(.*)$`, `^(?:(a|b)+/)*(.*)$`, `(b/a)b/9`, `x`} {
		re := regexp.MustCompile(pat)
		p, err := compileProgram(pat)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(backtrackFind(t, p, in, &s), re.FindSubmatchIndex(in)); diff != "" {
			t.Errorf("%q: mismatch with regexp (-got +want):\n%s", pat, diff)
		}
	}
}

func TestCompileProgramErrors(t *testing.T) {
	tests := []string{`(`, `a**`, `\8`, `(?P<>a)`, `x{1001}`}
	for _, expr := range tests {
		t.Run(expr, func(t *testing.T) {
			_, err := compileProgram(expr)
			_, wantErr := regexp.Compile(expr)
			if wantErr == nil {
				t.Fatalf("test case %q is valid for regexp", expr)
			}
			if err == nil || err.Error() != wantErr.Error() {
				t.Errorf("compileProgram(%q) error = %v, want %v", expr, err, wantErr)
			}
		})
	}
}

// BenchmarkBacktrack measures one regex-rule match with submatches: the port
// with a warmed Scratch against regexp.FindSubmatchIndex, the baseline.
func BenchmarkBacktrack(b *testing.B) {
	const pattern = `^/regex/499/(\d+)/(.*)$`
	input := []byte("/regex/499/123/abc")

	b.Run("port", func(b *testing.B) {
		p, err := compileProgram(pattern)
		if err != nil {
			b.Fatal(err)
		}
		var s Scratch
		caps := make([]int, 2*(p.numSubexp()+1))
		b.ReportAllocs()
		for b.Loop() {
			if !p.match(input, caps, &s) {
				b.Fatal("no match")
			}
		}
	})
	b.Run("regexp", func(b *testing.B) {
		re := regexp.MustCompile(pattern)
		b.ReportAllocs()
		for b.Loop() {
			if re.FindSubmatchIndex(input) == nil {
				b.Fatal("no match")
			}
		}
	})
}
