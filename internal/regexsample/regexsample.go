package regexsample

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Of returns a string expr (Go's Perl syntax) matches, built from its
// syntax tree: each optional repetition taken once (then, if that fails,
// as few times as it allows), the first branch of each alternation that
// gives a string, a plain character from each class. ok is false when
// neither attempt gives a string that expr matches, which happens with
// word boundaries (\b) between two generated characters, an alternation
// whose first branch is contradicted later, a class of only unprintable
// characters, or an expression deeper or longer than the bounds below.
func Of(expr string) (string, bool) { return sample(expr, false, false) }

// Least is Of with each optional repetition taken as few times as it
// allows: "^k=(.*)$" gives "k=", whose empty group is a corner of its
// own that a probe of Of's "k=x" does not reach.
func Least(expr string) (string, bool) { return sample(expr, true, false) }

// Path is Of for an expression matched against a URL path: the string
// starts with '/', one put in front of an unanchored expression's
// sample ("legacy" gives "/legacy") where the expression still matches.
func Path(expr string) (string, bool) { return sample(expr, false, true) }

// sample tries once and then the fewest repetitions (only the fewest
// with least), keeping the first string expr matches.
func sample(expr string, least, path bool) (string, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	check, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	modes := []bool{true, false}
	if least {
		modes = modes[1:]
	}
	for _, once := range modes {
		var b strings.Builder
		if !genRegex(&b, re, once, 0) {
			continue
		}
		s := b.String()
		cands := []string{s}
		if path {
			// An unanchored expression matches inside a longer path.
			cands = append(cands, "/"+s)
		}
		for _, cand := range cands {
			if (!path || strings.HasPrefix(cand, "/")) && check.MatchString(cand) {
				return cand, true
			}
		}
	}
	return "", false
}

// The bounds of a sample: a path of a thousand characters tells a
// reviewer nothing more than one of a hundred, and an expression nested
// deeper than any a person writes is not walked down to the stack's end.
const (
	maxSampleRepeat = 100  // characters written for x{n}
	maxDepth        = 100  // nesting of the syntax tree
	maxLen          = 4096 // bytes of the sample
)

// genRegex writes a string re matches (if the assertions in it hold) to
// b; once takes each optional repetition once rather than not at all. It
// returns false for an expression that matches nothing.
func genRegex(b *strings.Builder, re *syntax.Regexp, once bool, depth int) bool {
	if depth > maxDepth || b.Len() > maxLen {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		r, ok := pickRune(re.Rune)
		if !ok {
			return false
		}
		b.WriteRune(r)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpCapture:
		return genRegex(b, re.Sub[0], once, depth+1)
	case syntax.OpStar, syntax.OpQuest:
		if once {
			return genRegex(b, re.Sub[0], once, depth+1)
		}
	case syntax.OpPlus:
		return genRegex(b, re.Sub[0], once, depth+1)
	case syntax.OpRepeat:
		n := re.Min
		if n == 0 && once && re.Max != 0 {
			n = 1
		}
		for range min(n, maxSampleRepeat) {
			if !genRegex(b, re.Sub[0], once, depth+1) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !genRegex(b, s, once, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			mark := b.String()
			if genRegex(b, s, once, depth+1) {
				return true
			}
			b.Reset()
			b.WriteString(mark)
		}
		return false
	}
	// Empty matches and assertions (^, $, \b, \A, \z) write nothing.
	return true
}

// pickRune chooses a character of a class (pairs of lo, hi): a letter or
// digit a URL carries as is when the class has one, else its first
// printable ASCII character that needs no escaping in a path.
func pickRune(ranges []rune) (rune, bool) {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, r := range "ax0-_." {
		if in(r) {
			return r, true
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := max(ranges[i], '!'); r <= ranges[i+1] && r < 0x7f; r++ {
			if !strings.ContainsRune("?#% ", r) {
				return r, true
			}
		}
	}
	if len(ranges) >= 2 && ranges[0] >= 0x80 && utf8.ValidRune(ranges[0]) {
		return ranges[0], true
	}
	return 0, false
}
