package matcher

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/matcher/pcre"
)

// TestNginxReadingRandom runs random regexes of the constructs nginx
// configs use on random subjects with newlines, \v and bytes above 0x7F,
// and checks that where nginxReading says RE2 reads a regex and subject
// as PCRE does, package pcre (nginx's reading: TestNginxRandom) and Go's
// regexp agree, groups included, and that a Pattern answers as package
// pcre does on every subject.

func TestNginxReadingRandom(t *testing.T) {
	atoms := []string{"a", "b", "/", ".", "[^/]", "[a-z]", `\w`, `\s`, `\S`, `\d`, "é", `\xe9`, `\b`, `\B`, "$", "^", "(?i)k", "(?i:s)", `[^a]`, " ", `\W`, `[[:space:]]`, "(?s).", "(?m)$", `\z`, `\A`, `[\x80-\xff]`, `[é-ë]`, "(?i)é", `\pL`}
	reps := []string{"", "", "", "*", "+", "?", "*?", "+?", "{2}", "{1,2}", "{2,}"}
	bytesOf := []string{"a", "b", "/", "\n", "\v", " ", "\xc3", "\xa9", "k", "\u212a", "s", "1"}
	rng := rand.New(rand.NewPCG(1, 2))
	var gen func(depth int) string
	gen = func(depth int) string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			var atom string
			switch k := rng.IntN(10); {
			case k < 2 && depth < 3:
				atom = "(" + gen(depth+1) + ")"
			case k < 3 && depth < 3:
				atom = "(?:" + gen(depth+1) + "|" + gen(depth+1) + ")"
			default:
				atom = atoms[rng.IntN(len(atoms))]
			}
			b.WriteString(atom + reps[rng.IntN(len(reps))])
		}
		return b.String()
	}
	var s Scratch
	var ps pcre.Scratch
	checked := 0
	for range 20000 {
		expr := gen(0)
		if rng.IntN(2) == 0 {
			expr = "^/" + expr
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			continue
		}
		x, err := pcre.Compile(expr, false)
		if err != nil {
			continue
		}
		p, err := CompilePattern(expr)
		if err != nil {
			t.Fatalf("CompilePattern(%q): %v", expr, err)
		}
		tree, _ := syntax.Parse(expr, syntax.Perl)
		pcreOnly, on := nginxReading(expr, tree)
		for range 4 {
			var in strings.Builder
			in.WriteString("/")
			for range rng.IntN(6) {
				in.WriteString(bytesOf[rng.IntN(len(bytesOf))])
			}
			subj := []byte(in.String())
			want := make([]int, 2*(x.NumSubexp()+1))
			budget := 1 << 22
			m, ex := x.Match(&ps, subj, want, &budget)
			if ex {
				continue
			}
			if !m {
				want = nil
			}
			checked++
			if !pcreOnly && !subjectReads(subj, on) {
				if w := re.FindSubmatchIndex(subj); !slices.Equal(w, want) {
					t.Errorf("%q on %q, read alike: regexp %v, pcre %v", expr, subj, w, want)
				}
			}
			caps := make([]int, 2*(p.NumCap()+1))
			s.ResetSteps()
			if !p.Match(&s, subj, caps) {
				caps = nil
			}
			if !slices.Equal(caps, want) && !s.PCREAbandoned() {
				t.Errorf("%q on %q: Pattern %v, pcre %v", expr, subj, caps, want)
			}
		}
	}
	if checked < 20000 {
		t.Errorf("only %d regexes and subjects checked", checked)
	}
}
