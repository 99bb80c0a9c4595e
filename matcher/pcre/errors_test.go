package pcre

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refusals are patterns Compile refuses, with the error; pcre2 marks
// those nginx's PCRE2 refuses too (TestNginxRefuses), the others being
// what this engine does not do (recursion, conditionals, verbs, \p) or
// its bounds.
var refusals = []struct {
	re    string
	want  string
	pcre2 bool
}{
	{`(?<=a+)b`, "lookbehind assertion is not fixed length at offset 0", true},
	{`x(?<=a|bc(d|ef))`, "lookbehind assertion is not fixed length at offset 1", true},
	{`(?<=\1)(a+)`, "lookbehind assertion is not fixed length at offset 0", true},
	{`a\2(b)`, "reference to non-existent subpattern 2 at offset 1", true},
	{`\k<nope>(?<yes>a)`, `reference to non-existent subpattern "nope" at offset 0`, true},
	{`(?<a>x)(?<a>y)`, `two named subpatterns have the same name "a" at offset 7`, true},
	{`(?=a\Kb)`, `\K is not allowed in lookarounds at offset 4`, true},
	{`(?R)`, "(?R is not supported (branch reset, conditionals, recursion, callouts) at offset 0", false},
	{`(?(1)a|b)`, "(?( is not supported (branch reset, conditionals, recursion, callouts) at offset 0", false},
	{`(?|a)`, "(?| is not supported (branch reset, conditionals, recursion, callouts) at offset 0", false},
	{`(*UTF)a`, "(*VERB) and (*OPTION) are not supported at offset 0", false},
	{`\p{L}`, `unrecognized or unsupported escape \p at offset 0`, false},
	{`a**`, "quantifier does not follow a repeatable item at offset 2", true},
	{`a{2}{3}`, "quantifier does not follow a repeatable item at offset 4", true},
	{`*a`, "quantifier does not follow a repeatable item at offset 0", true},
	{`^*`, "quantifier does not follow a repeatable item at offset 1", true},
	{`(?i)*`, "quantifier does not follow a repeatable item at offset 4", true},
	{`a{3,2}`, "numbers out of order in {} quantifier at offset 1", true},
	{`a{70000}`, "number too big in {} quantifier at offset 1", true},
	{`(a`, "missing closing parenthesis at offset 0", true},
	{`a)`, "unmatched closing parenthesis at offset 1", true},
	{`[a`, "missing terminating ] for character class at offset 0", true},
	{`[z-a]`, "range out of order in character class at offset 2", true},
	{`[[:nope:]]`, `unknown POSIX class name "nope" at offset 1`, true},
	{`\x{100}`, "character code point value in \\x{} is too large (no UTF mode) or invalid at offset 0", true},
	{`a\`, "\\ at end of pattern at offset 1", true},
	{`(?z)`, "unrecognized character after (? or (?- at offset 2", true},
	{`\N{x}`, `\N{name} is not supported at offset 0`, true},
	{`(?<1a>x)`, "group name must start with a non-digit and hold only letters, digits and _ at offset 3", true},
	{strings.Repeat("(", 300) + strings.Repeat(")", 300), "parentheses are too deeply nested (more than 250) at offset 250", true},
	{strings.Repeat("a", MaxPatternBytes+1), "pattern is longer than the limit at offset 16384", false},
	{`((a{1000}){1000}){1000}`, "pattern compiles to too many instructions (counted repeats unrolled) at offset 0", false},
}

// TestCompileErrors checks that Compile names the construct it refuses
// and where.
func TestCompileErrors(t *testing.T) {
	for _, c := range refusals {
		_, err := Compile(c.re, false)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Compile(%.40q): %v, want an *Error", c.re, err)
			continue
		}
		if diff := cmp.Diff("pcre: "+c.want, err.Error()); diff != "" {
			t.Errorf("Compile(%.40q) (-want +got):\n%s", c.re, diff)
		}
	}
}

// TestNeeds checks which rule-language regexes take this engine: those
// RE2 refuses and PCRE accepts; the others stay on RE2.
func TestNeeds(t *testing.T) {
	for re, want := range map[string]bool{
		`^/docs/(?!v\d/)(.+)`: true,
		`(?<=/a)b`:            true,
		`(?>a+)b`:             true,
		`a++`:                 true,
		`^/(\w+)/\1$`:         true,
		`(?<n>x)\k<n>`:        true,
		`^/a/(.*)$`:           false,
		`(?i)^/a\Q.\E$`:       false,
		`(?P<x>a)`:            false,
		`^/(a`:                false, // neither accepts it
		`(?R)`:                false,
	} {
		if got := Needs(re); got != want {
			t.Errorf("Needs(%q) = %v, want %v", re, got, want)
		}
	}
}

// TestNames checks SubexpNames for every way of naming a group.
func TestNames(t *testing.T) {
	re, err := Compile(`(a)(?<x>b)(?P<y>c)(?'z'd)(?:e)`, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"", "", "x", "y", "z"}, re.SubexpNames()); diff != "" {
		t.Error(diff)
	}
	if re.NumSubexp() != 4 {
		t.Errorf("NumSubexp() = %d, want 4", re.NumSubexp())
	}
}

// TestPrefilters checks what an index may file a pattern under.
func TestPrefilters(t *testing.T) {
	for _, c := range []struct{ re, prefix, required string }{
		{`^/docs/(?!v\d/)(.+)`, "/docs/", "/docs/"},
		{`^(.*)/usage(?=/|$)/?$`, "", "/usage"},
		{`(?i)^/docs/x`, "/", "/"},
		{`^/a(?<=a)b/(\w+)\.html$`, "/a", ".html"},
		{`x|y`, "", ""},
	} {
		re, err := Compile(c.re, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]string{re.LiteralPrefix(), re.Required()}; got != [2]string{c.prefix, c.required} {
			t.Errorf("%q: prefix, required %q, want %q %q", c.re, got, c.prefix, c.required)
		}
	}
}
