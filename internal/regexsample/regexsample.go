package regexsample

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Path returns a path that expr matches, built from its syntax
// tree: each repetition taken once (then, if that fails, as few times as
// it allows), the first branch of each alternation, a plain character from
// each class. ok is false when neither attempt gives a path that expr
// matches, which happens with word boundaries (\b) between two generated
// characters, an alternation whose first branch is contradicted later, or
// a class of only unprintable characters.
func Path(expr string) (path string, ok bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	check, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	for _, once := range []bool{true, false} {
		var b strings.Builder
		if !genRegex(&b, re, once, 0) {
			continue
		}
		s := b.String()
		// An unanchored expression matches inside a longer path.
		for _, cand := range []string{s, "/" + s} {
			if strings.HasPrefix(cand, "/") && check.MatchString(cand) {
				return cand, true
			}
		}
	}
	return "", false
}

// maxSampleRepeat bounds the characters written for x{n}: a path of a
// thousand characters tells a reviewer nothing more than one of a hundred.
const maxSampleRepeat = 100

// genRegex writes a string re matches (if the assertions in it hold) to
// b; once takes each optional repetition once rather than not at all. It
// returns false for an expression that matches nothing.
func genRegex(b *strings.Builder, re *syntax.Regexp, once bool, depth int) bool {
	if depth > 100 || b.Len() > 4096 {
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
