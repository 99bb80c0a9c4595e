package pcre

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// construct is one pattern run on one path, with what nginx's PCRE2
// answers: "n" for no match, else "m|$0|$1|$2|$3" (the texts; a group
// that took no part is empty, as nginx writes it). TestNginxAgrees checks
// every want against a real nginx.
type construct struct {
	re   string
	ci   bool // nginx's ~*
	in   string
	want string
}

var constructs = []construct{
	// lookahead
	{`^/docs/(?!(v\d|latest)/)(?:.+)`, false, "/docs/foo/bar", "m|/docs/foo/bar|||"},
	{`^/docs/(?!(v\d|latest)/)(?:.+)`, false, "/docs/v1/bar", "n"},
	{`^/docs/(?!(v\d|latest)/)(?:.+)`, false, "/docs/latest/x", "n"},
	{`^/docs/(?!(v\d|latest)/)(?:.+)`, false, "/docs/latestx/x", "m|/docs/latestx/x|||"},
	{`^/(?=a(b))(\w+)`, false, "/abc", "m|/abc|b|abc|"},
	{`^(.*)/usage(?=/|$)/?$`, false, "/v1/usage/", "m|/v1/usage/|/v1||"},
	{`^(.*)/usage(?=/|$)/?$`, false, "/v1/usagex", "n"},
	{`foo(?!bar)`, false, "/foobar/foobaz", "m|foo|||"},
	// werf's (../shared/realmaps/werf)
	{`^/docs/(?!(v\d+(?:\.\d+(?:\.\d+(?:[^/]+)?)?)?|latest)/)(?:.+)`, false, "/docs/v1.2.3-beta/x", "n"},
	{`^/docs/(?!(v\d+(?:\.\d+(?:\.\d+(?:[^/]+)?)?)?|latest)/)(?:.+)`, false, "/docs/v1.2x/x", "m|/docs/v1.2x/x|||"},
	{`^/docs/(?!(v\d+(?:\.\d+(?:\.\d+(?:[^/]+)?)?)?|latest)/)(?:.+)`, false, "/docs/guide/x", "m|/docs/guide/x|||"},
	{`^/docs/(?!(?:pr-[^/]+|latest|v2|v1\.2)/)(?:.+)`, false, "/docs/pr-12/x", "n"},
	{`^/docs/(?!(?:pr-[^/]+|latest|v2|v1\.2)/)(?:.+)`, false, "/docs/v1.3/x", "m|/docs/v1.3/x|||"},
	// lookbehind
	{`(?<=/a)b`, false, "/ab", "m|b|||"},
	{`(?<=/a|/bc)d`, false, "/bcd", "m|d|||"},
	{`(?<!/a)b`, false, "/ab/cb", "m|b|||"},
	{`(?<=(x))y`, false, "/xy", "m|y|x||"},
	{`^/[^/]+(?<!\.html)$`, false, "/page.html", "n"},
	{`^/[^/]+(?<!\.html)$`, false, "/page.htm", "m|/page.htm|||"},
	// atomic groups and possessive quantifiers
	{`^/(?>a+)b`, false, "/aaab", "m|/aaab|||"},
	{`^/(?>a|ab)c`, false, "/abc", "n"},
	{`^/a++a`, false, "/aaaa", "n"},
	{`^/(\w++)\.html$`, false, "/page.html", "m|/page.html|page||"},
	{`^/a?+a`, false, "/a", "n"},
	{`^/a{1,3}+a`, false, "/aaaa", "m|/aaaa|||"},
	{`^/a{1,3}+a`, false, "/aaa", "n"},
	{`^/(?:ab)*+ab`, false, "/abab", "n"},
	{`^/(?:ab)*+c`, false, "/ababc", "m|/ababc|||"},
	// backreferences
	{`^/(\w+)/\1$`, false, "/ab/ab", "m|/ab/ab|ab||"},
	{`^/(\w+)/\1$`, false, "/ab/ac", "n"},
	{`^/(?<x>\w+)/\k<x>$`, false, "/q/q", "m|/q/q|q||"},
	{`^/(?P<x>\w+)/(?P=x)$`, false, "/q/q", "m|/q/q|q||"},
	{`^/(?'x'\w+)/\k{x}$`, false, "/q/q", "m|/q/q|q||"},
	{`^/(a)(b)\g{-1}\g1$`, false, "/abba", "m|/abba|a|b|"},
	{`^/(a)\1`, true, "/aA", "m|/aA|a||"},
	{`^/([a-z]+)-\1$`, true, "/abcdefghijklmnopqrstuvwxyzabcdefghij-ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ", "m|/abcdefghijklmnopqrstuvwxyzabcdefghij-ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJ|abcdefghijklmnopqrstuvwxyzabcdefghij||"},
	{`^/(?:(a)|b)\1`, false, "/b", "n"},
	// \Q...\E
	{`^/\Q.*+\E$`, false, "/.*+", "m|/.*+|||"},
	{`^/\Q.*+\E$`, false, "/aa+", "n"},
	{`^/\Qab\E+$`, false, "/abbb", "m|/abbb|||"},
	{`^/[\Q]\E]$`, false, "/]", "m|/]|||"},
	// inline flags
	{`^/(?i)abc$`, false, "/ABC", "m|/ABC|||"},
	{`^/((?>(a+)a)?)`, false, "/aa", "m|/aa|aa|a|"},
	{`^/a(?i)b|c`, false, "/C", "m|C|||"},
	{`^/(?i:a)b$`, false, "/Ab", "m|/Ab|||"},
	{`^/(?i:a)b$`, false, "/AB", "n"},
	{`^/a(?-i)b$`, true, "/Ab", "m|/Ab|||"},
	{`^/a(?-i)b$`, true, "/AB", "n"},
	{`^/((?i)a)b$`, false, "/AB", "n"},
	{`^/(?x) a b # comment
	$`, false, "/ab", "m|/ab|||"},
	{`^/(?s).$`, false, "/\n", "m|/\n|||"},
	{`^/.$`, false, "/\n", "n"},
	{`^/(?m)a$`, false, "/a\nb", "m|/a|||"},
	{`^/(?U)(a+)`, false, "/aaa", "m|/a|a||"},
	// named groups
	{`^/(?<year>\d{4})/(?P<slug>[a-z-]+)$`, false, "/2024/hello-world", "m|/2024/hello-world|2024|hello-world|"},
	// classes
	{`^/[[:alpha:]]+$`, false, "/abcXYZ", "m|/abcXYZ|||"},
	{`^/[[:alpha:]]+$`, false, "/abc1", "n"},
	{`^/[[:^digit:]]+$`, false, "/ab-c", "m|/ab-c|||"},
	{`^/[^a-c]+$`, true, "/dB", "n"},
	{`^/[a-c]+$`, true, "/aBC", "m|/aBC|||"},
	{`^/[\d-]+$`, false, "/1-2", "m|/1-2|||"},
	{`^/\d\w\s`, false, "/1a ", "m|/1a |||"},
	{`^/\h\H`, false, "/\tx", "m|/\tx|||"},
	{`^/\v`, false, "/\r", "m|/\r|||"},
	{`^/\N+`, false, "/ab\nc", "m|/ab|||"},
	{`^/\N{2}$`, false, "/ab", "m|/ab|||"},
	{`^/[[:punct:]]+$`, false, "/!-_.~", "m|/!-_.~|||"},
	{`^/\x41\x{42}\101$`, false, "/ABA", "m|/ABA|||"},
	// anchors
	{`^/a\z`, false, "/a", "m|/a|||"},
	{`^/a\Z`, false, "/a\n", "m|/a|||"},
	{`^/a$`, false, "/a\n", "m|/a|||"},
	{`^/a\z`, false, "/a\n", "n"},
	{`\A/a`, false, "/a", "m|/a|||"},
	{`\bfoo\b`, false, "/x-foo-y", "m|foo|||"},
	{`\Bfoo`, false, "/foo/xfoo", "m|foo|||"},
	// \K
	{`^/old/\K(.*)`, false, "/old/page", "m|page|page||"},
	// bytes (no UTF mode): . is one byte, é two
	{`^/caf.$`, false, "/café", "n"},
	{`^/caf..$`, false, "/café", "m|/café|||"},
	{`^/caf(é)$`, false, "/café", "m|/café|é||"},
	{`^/(.)`, false, "/é", "m|/\xc3|\xc3||"},
	{`^/é?$`, false, "/", "n"}, // a repeat takes é's last byte
	{`^/é?$`, false, "/\xc3", "m|/\xc3|||"},
	{`^/xé*$`, false, "/x\xc3\xa9\xa9", "m|/x\xc3\xa9\xa9|||"},
	{`^/k$`, true, "/\u212a", "n"}, // RE2's (?i)k also matches the Kelvin sign
	{`^/s$`, true, "/\u017f", "n"}, // and s the long s
	// \s is PCRE2's, with \v (RE2's has no \v)
	{`^/a\s$`, false, "/a\v", "m|/a\v|||"},
	{`^/a\S$`, false, "/a\v", "n"},
	{`^/a\v`, false, "/a\f", "m|/a\f|||"}, // vertical space, RE2's \x0B
	// repeats and empty iterations
	{`^/(a*)*b`, false, "/aab", "m|/aab|||"},
	{`^/(a|)*b`, false, "/aab", "m|/aab|||"},
	{`^/(([^b]*)*)$`, false, "/0", "m|/0|0||"},
	{`^/x(?:\B|[^a])*`, false, "/x00", "m|/x|||"},
	{`x(?:\B|[^a])*`, false, "/x00", "m|x|||"}, // RE2: x00
	{`^/tags/(?<first>.*)+(?<second>.*)$`, false, "/tags/xx", "m|/tags/xx|||"},
	{`^/(a*)+$`, false, "/aa", "m|/aa|||"},
	{`^/(a|b|)+$`, false, "/ab", "m|/ab|||"},
	{`^/(?:(a)|b|)+$`, false, "/ab", "m|/ab|a||"},
	{`^/(a?)*?$`, false, "/aa", "m|/aa|a||"},
	{`^/(a|b)*?c`, false, "/abc", "m|/abc|b||"},
	{`^/(?:(a)|b)+$`, false, "/ab", "m|/ab|a||"},
	{`^/a{2,}`, false, "/aaa", "m|/aaa|||"},
	{`^/a{,2}`, false, "/a{,2}", "m|/a{,2}|||"},
	{`^/x(?#comment)*$`, false, "/xxx", "m|/xxx|||"},
	{`^/(?<=/|ab)x`, false, "/x", "m|/x|||"},
	{`^/(a)(?<=\1)b`, false, "/ab", "m|/ab|a||"},
	{`^/(?:(a)|b)(?<!\1)c`, false, "/bc", "m|/bc|||"},
	{`^/x{2}y{1,2}?`, false, "/xxyy", "m|/xxy|||"},
	{`^/(ab){2}$`, false, "/abab", "m|/abab|ab||"},
	// unanchored search, leftmost-first
	{`b+`, false, "/abbc", "m|bb|||"},
	{`(.*)/usage/?$`, false, "/a/usage", "m|/a/usage|/a||"},
	{`x*`, false, "/y", "m||||"},
	{`.*\Gy`, false, "/y", "n"}, // PCRE2 anchors a leading .* even so
}

// format writes what nginx's `return 200 "m|$0|$1|$2|$3"` would.
func format(input []byte, matched bool, caps []int) string {
	if !matched {
		return "n"
	}
	var b strings.Builder
	b.WriteString("m")
	for g := 0; g < 4; g++ {
		b.WriteByte('|')
		if 2*g+1 < len(caps) && caps[2*g] >= 0 {
			b.Write(input[caps[2*g]:caps[2*g+1]])
		}
	}
	return b.String()
}

func run(t *testing.T, re *Regexp, in string) string {
	t.Helper()
	var s Scratch
	caps := make([]int, 2*(re.NumSubexp()+1))
	budget := 1 << 20
	m, ex := re.Match(&s, []byte(in), caps, &budget)
	if ex {
		t.Fatalf("%q on %q: budget exhausted", re, in)
	}
	return format([]byte(in), m, caps)
}

func TestConstructs(t *testing.T) {
	for _, c := range constructs {
		re, err := Compile(c.re, c.ci)
		if err != nil {
			t.Errorf("Compile(%q): %v", c.re, err)
			continue
		}
		if diff := cmp.Diff(c.want, run(t, re, c.in)); diff != "" {
			t.Errorf("%q (ci %v) on %q (-want +got):\n%s", c.re, c.ci, c.in, diff)
		}
	}
}
