package pcre

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gen builds a pattern from b, a small grammar of what RE2 and PCRE both
// accept and mean alike on ASCII input without newlines: literals,
// classes, groups (plain, named, (?i:)), alternation, the quantifiers
// greedy and lazy, and the anchors.
type gen struct {
	b     []byte
	names int
}

func (g *gen) next() int {
	if len(g.b) == 0 {
		return 0
	}
	c := int(g.b[0])
	g.b = g.b[1:]
	return c
}

func (g *gen) expr(depth int) string {
	if depth > 4 {
		return g.atom()
	}
	switch g.next() % 8 {
	case 0, 1:
		return g.expr(depth+1) + g.expr(depth+1)
	case 2:
		return g.expr(depth+1) + "|" + g.expr(depth+1)
	case 3:
		return g.group(depth) + g.quant()
	case 4:
		if a := g.atom(); a != "" {
			return a + g.quant()
		}
	case 5:
		return []string{"^", "$", `\b`, `\B`, `\A`, `\z`}[g.next()%6]
	}
	return g.atom()
}

func (g *gen) group(depth int) string {
	e := g.expr(depth + 1)
	switch g.next() % 5 {
	case 0:
		return "(?:" + e + ")"
	case 1:
		g.names++
		return fmt.Sprintf("(?P<n%d>%s)", g.names, e)
	case 2:
		return "(?i:" + e + ")"
	}
	return "(" + e + ")"
}

func (g *gen) atom() string {
	return []string{"a", "b", "/", "-", ".", "A", "[ab]", "[^a]", `\d`, `\w`, `\W`, "[a-c/]", "x", `\.`, "(?i)b", ""}[g.next()%16]
}

func (g *gen) quant() string {
	q := []string{"", "*", "+", "?", "{2}", "{1,3}", "{0,}", "{2,}"}[g.next()%8]
	if q != "" && g.next()%3 == 0 {
		q += "?"
	}
	return q
}

// asciiInput keeps the bytes of in that the grammar's comparison holds
// for: printable ASCII (RE2 reads runes, this engine bytes).
func asciiInput(in string) string {
	var b strings.Builder
	for i := 0; i < len(in) && b.Len() < 64; i++ {
		if c := in[i]; c >= ' ' && c < 0x7f {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FuzzPCREvsRE2 checks that on the patterns both engines accept, with
// the same meaning, this engine finds what Go's regexp finds
// (leftmost-first), groups included.
func FuzzPCREvsRE2(f *testing.F) {
	f.Add([]byte{0, 1, 4, 2, 3}, "/ab/aab")
	f.Add([]byte{3, 3, 2, 1, 7, 0, 9}, "/a-b.c")
	f.Add([]byte("pattern bytes"), "/x/ab/AB/-1")
	f.Fuzz(func(t *testing.T, g []byte, in string) {
		gr := &gen{b: g}
		expr := gr.expr(0)
		in = asciiInput(in)
		want := regexp.MustCompile(expr) // the grammar writes only valid RE2
		re, err := Compile(expr, false)
		if err != nil {
			t.Fatalf("Compile(%q): %v", expr, err)
		}
		if _, n, _ := parse(expr, false, re.ncap); emptyIterations(n) {
			return
		}
		var s Scratch
		caps := make([]int, 2*(re.NumSubexp()+1))
		budget := 1 << 24
		m, ex := re.Match(&s, []byte(in), caps, &budget)
		if ex { // exponential backtracking, which PCRE's match limit stops too
			return
		}
		w := want.FindStringSubmatchIndex(in)
		if !m {
			caps = nil
		}
		if diff := cmp.Diff(w, caps); diff != "" {
			t.Fatalf("%q on %q (-regexp +pcre):\n%s", expr, in, diff)
		}
		if diff := cmp.Diff(want.SubexpNames(), re.SubexpNames()); diff != "" {
			t.Fatalf("%q names (-regexp +pcre):\n%s", expr, diff)
		}
	})
}

// FuzzCompileMatch checks that no pattern makes Compile or Match panic,
// and that Match spends about its budget at most, whatever the pattern
// and path.
func FuzzCompileMatch(f *testing.F) {
	for _, c := range constructs {
		f.Add(c.re, c.ci, c.in)
	}
	f.Add(`^(a+)+$`, false, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab")
	f.Add(`(?:(?=(a*))\1)*b`, false, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac")
	f.Add(`((((x))))\4{100}(?<=x)`, true, "xxxxxxxxxxxxxx")
	f.Fuzz(func(t *testing.T, expr string, ci bool, in string) {
		re, err := Compile(expr, ci)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Compile(%q): error of type %T", expr, err)
			}
			return
		}
		var s Scratch
		caps := make([]int, 2*(re.NumSubexp()+1))
		const limit = 2000
		budget := limit
		m, ex := re.Match(&s, []byte(in), caps, &budget)
		if m && ex {
			t.Fatalf("%q on %q: matched and exhausted", expr, in)
		}
		// A step may be charged past the end by a scan (a step per 16
		// bytes) or the end of an atomic group (a step per choice point
		// it drops, each already paid for once).
		if spent := limit - budget; spent > 2*limit+len(in) {
			t.Fatalf("%q on %q: %d steps spent of a budget of %d", expr, in, spent, limit)
		}
		if m {
			for g := 0; g < len(caps); g += 2 {
				if caps[g] < -1 || caps[g] > len(in) || caps[g+1] > len(in) || caps[g] >= 0 && caps[g+1] < 0 {
					t.Fatalf("%q on %q: bad group %d %v", expr, in, g/2, caps)
				}
			}
		}
	})
}

// emptyIterations reports whether n repeats without bound a group that
// can match empty: PCRE ends the loop at an iteration that matched empty
// (and records its groups) where RE2 goes on with another branch, so
// (a|)* on "aa" leaves group 1 empty at 2 in PCRE, "a" in RE2, and
// x(?:\B|[^a])* on "x00" matches "x" in PCRE, "x00" in RE2. nginx agrees
// with this engine (constructs_test.go).
func emptyIterations(n *node) bool {
	if n.kind == nRepeat && n.max < 0 && n.subs[0].nullable() {
		return true
	}
	for _, s := range n.subs {
		if emptyIterations(s) {
			return true
		}
	}
	return false
}

// TestGiveBackVsRE2 checks the greedy repeats that give back to the next
// literal (a byte or a string) against Go's regexp on every short input
// of a few letters.
func TestGiveBackVsRE2(t *testing.T) {
	patterns := []string{`^(.*)/ab`, `^(.*)(/ab)`, `(.*)(?:(b)a)`, `(.*)ab(.*)`, `a.*ba`, `x[ab]*ab$`, `(a*)aab`, `^(.*)/(a|b)/?$`, `.{1,3}ba`, `[^/]*/b`, `(.*)b(.*)b`, `.*?ab`}
	var inputs []string
	var walk func(s string)
	walk = func(s string) {
		inputs = append(inputs, s)
		if len(s) < 6 {
			for _, c := range []string{"a", "b", "/", "x"} {
				walk(s + c)
			}
		}
	}
	walk("")
	var s Scratch
	for _, p := range patterns {
		want := regexp.MustCompile(p)
		re := MustCompile(p)
		for _, in := range inputs {
			caps := make([]int, 2*(re.NumSubexp()+1))
			budget := 1 << 20
			m, _ := re.Match(&s, []byte(in), caps, &budget)
			if !m {
				caps = nil
			}
			if diff := cmp.Diff(want.FindStringSubmatchIndex(in), caps); diff != "" {
				t.Fatalf("%q on %q (-regexp +pcre):\n%s", p, in, diff)
			}
		}
	}
}
