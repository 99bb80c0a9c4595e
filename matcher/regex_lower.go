package matcher

import (
	"math"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/redirectd/redirectd/internal/ascii"
)

// Lowering: most regexes in hand-written maps are literals in disguise
// (`^/old-page$`, `^/doc/2015-report.pdf.*$`, `(?i)^/Old/?$`). Such a regex
// is answered by the literal tables of lit.go instead of the backtracker,
// with the same result for every input: lower accepts only the shapes
// below and refuses everything else, and FuzzLowered checks the tables
// against package regexp.
//
//	^L$          exact
//	^L/?$        exact, with or without one trailing slash
//	^L           prefix
//	^L.*  ^L.*$  prefix (the rest holds no newline, as '.' does not match it)
//	^L(.*)  ^L(.*)$  the same, the rest being group 1
//
// L is a run of literal characters and '.' wildcards (any character but a
// newline), all case-sensitive or all (?i). A (?i) L may hold only ASCII
// and caseless characters: its letters then fold only to ASCII letters and
// to K (U+212A) and ſ (U+017F), which the lookup folds too.

// tailKind is what follows L in a lowered regex.
type tailKind uint8

const (
	tailEnd      tailKind = iota // ^L$
	tailSlashEnd                 // ^L/?$
	tailNone                     // ^L: the match ends after L
	tailAny                      // ^L.*: the match runs to the first newline
	tailAnyEnd                   // ^L.*$: the rest holds no newline
)

// litPattern is a lowered regex.
type litPattern struct {
	// pat is L's bytes (lower-cased when fold), with a placeholder byte at
	// each wildcard; wild lists the wildcards' offsets in pat, ascending.
	pat  string
	wild []uint16
	tail tailKind
	fold bool
	// capture: group 1 is the rest after L (tailAny or tailAnyEnd).
	capture bool
}

// lower returns the literal pattern equivalent to re (expr parsed with
// syntax.Perl, not simplified), or nil when re has another shape.
func lower(re *syntax.Regexp, expr string) *litPattern {
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return nil
	}
	subs := re.Sub[1:]
	p := &litPattern{}
	var b strings.Builder
	hasLetter := func(rs []rune) bool {
		for _, r := range rs {
			if unicode.SimpleFold(r) != r {
				return true
			}
		}
		return false
	}
	foldSeen, exactSeen := false, false
	i := 0
	for ; i < len(subs); i++ {
		s := subs[i]
		switch s.Op {
		case syntax.OpLiteral:
			fold := s.Flags&syntax.FoldCase != 0
			if !hasLetter(s.Rune) {
				fold = false // the flag is meaningless here
			} else if fold {
				foldSeen = true
			} else {
				exactSeen = true
			}
			for _, r := range s.Rune {
				if r == utf8.RuneError {
					return nil // would also match an invalid byte
				}
				if fold && unicode.SimpleFold(r) != r {
					if r >= utf8.RuneSelf {
						return nil // a non-ASCII letter: the tables fold ASCII only
					}
					r = unicode.ToLower(r)
				}
				b.WriteRune(r)
			}
			continue
		case syntax.OpAnyCharNotNL:
			if b.Len() >= math.MaxUint16 {
				return nil
			}
			p.wild = append(p.wild, uint16(b.Len()))
			b.WriteByte('.')
			continue
		}
		break
	}
	if foldSeen && exactSeen {
		return nil // (?i:a)b: a mix the tables cannot key
	}
	p.fold = foldSeen
	if b.Len() == 0 || b.Len() > math.MaxUint16 {
		return nil
	}
	p.pat = b.String()
	if i := strings.Index(expr, p.pat); i >= 0 {
		p.pat = expr[i : i+len(p.pat)] // most often; one string less per rule
	}
	if !p.tailOf(subs[i:]) {
		return nil
	}
	return p
}

// tailOf sets p's tail from what follows L, reporting whether it is one
// of the lowered shapes.
func (p *litPattern) tailOf(rest []*syntax.Regexp) bool {
	end := len(rest) > 0 && rest[len(rest)-1].Op == syntax.OpEndText
	if end {
		rest = rest[:len(rest)-1]
	}
	switch len(rest) {
	case 0:
		p.tail = tailNone
		if end {
			p.tail = tailEnd
		}
		return true
	case 1:
	default:
		return false
	}
	s := rest[0]
	if end && s.Op == syntax.OpQuest && s.Flags&syntax.NonGreedy == 0 && isRune(s.Sub[0], '/') {
		p.tail = tailSlashEnd
		return true
	}
	if s.Op == syntax.OpCapture && s.Cap == 1 {
		p.capture = true
		s = s.Sub[0]
	}
	// A lazy .* without $ matches nothing; keep it out rather than model it.
	if s.Op != syntax.OpStar || s.Sub[0].Op != syntax.OpAnyCharNotNL || !end && s.Flags&syntax.NonGreedy != 0 {
		return false
	}
	p.tail = tailAny
	if end {
		p.tail = tailAnyEnd
	}
	return true
}

// isRune reports whether re is the single character r, which has no case.
func isRune(re *syntax.Regexp, r rune) bool {
	return re.Op == syntax.OpLiteral && len(re.Rune) == 1 && re.Rune[0] == r && unicode.SimpleFold(r) == r
}

// key is the literal the pattern is filed under: all of pat for an exact
// pattern without wildcards, else pat up to its first wildcard.
func (p *litPattern) key() string {
	if len(p.wild) > 0 {
		return p.pat[:p.wild[0]]
	}
	return p.pat
}

// exact reports whether the pattern matches only whole inputs without
// wildcards, so that a hash lookup finds it.
func (p *litPattern) exact() bool {
	return len(p.wild) == 0 && (p.tail == tailEnd || p.tail == tailSlashEnd)
}

// match reports whether the pattern matches in (folded when p.fold), and
// returns where L ends and where the whole match ends.
func (p *litPattern) match(in []byte) (litEnd, end int, ok bool) {
	i, w := 0, p.wild
	for j := 0; j < len(p.pat); j++ {
		if len(w) > 0 && int(w[0]) == j {
			w = w[1:]
			if i >= len(in) {
				return 0, 0, false
			}
			r, size := utf8.DecodeRune(in[i:])
			if r == '\n' {
				return 0, 0, false
			}
			i += size
			continue
		}
		if i >= len(in) || in[i] != p.pat[j] {
			return 0, 0, false
		}
		i++
	}
	switch p.tail {
	case tailEnd:
		return i, i, i == len(in)
	case tailSlashEnd:
		return i, len(in), i == len(in) || i == len(in)-1 && in[i] == '/'
	case tailNone:
		return i, i, true
	case tailAny:
		if nl := indexNewline(in[i:]); nl >= 0 {
			return i, i + nl, true
		}
		return i, len(in), true
	default: // tailAnyEnd
		return i, len(in), indexNewline(in[i:]) < 0
	}
}

// ncaps is the length of the capture slice the pattern fills.
func (p *litPattern) ncaps() int {
	if p.capture {
		return 4
	}
	return 2
}

// lowerFast is lower for the common spellings, read straight from the
// expression without building a syntax tree: regexp/syntax allocates about
// 30 objects per regex, most of a map file's load. It returns nil for
// anything it does not recognise (the caller then parses), and otherwise
// exactly what lower(syntax.Parse(expr, syntax.Perl), expr) returns, with
// the number of capture groups; FuzzLowerFast checks that.
func lowerFast(expr string) (*litPattern, int) {
	p := new(litPattern)
	ncap, ok := lowerFastInto(p, expr)
	if !ok {
		return nil, 0
	}
	return p, ncap
}

// lowerFastInto is lowerFast writing the pattern to p, which the caller
// may reuse (a rule's own storage): a map file's load allocates one less
// object per regex.
func lowerFastInto(p *litPattern, expr string) (int, bool) {
	*p = litPattern{}
	s := expr
	fold := strings.HasPrefix(s, "(?i)")
	if fold {
		s = s[len("(?i)"):]
	}
	if !strings.HasPrefix(s, "^") {
		return 0, false
	}
	s = s[1:]
	var buf [256]byte
	b := buf[:0]
	letters := false
	for len(s) > 0 {
		c, n := s[0], 1
		switch {
		case c == '\\':
			if len(s) < 2 || !isEscapedPunct(s[1]) {
				return 0, false
			}
			c, n = s[1], 2
		case regexMeta[c]:
			goto tail
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s)
			if r == utf8.RuneError || fold && unicode.SimpleFold(r) != r {
				return 0, false // invalid, U+FFFD itself, or a letter folding beyond ASCII
			}
			n = size
		}
		if len(s) > n && quantifier[s[n]] {
			break // a quantified character: only the tails below are lowered
		}
		switch {
		case n == 1 && c == '.':
			if len(b) >= math.MaxUint16 {
				return 0, false
			}
			p.wild = append(p.wild, uint16(len(b)))
			b = append(b, '.')
		case c >= utf8.RuneSelf:
			b = append(b, s[:n]...)
		default:
			if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' {
				letters = true
				if fold {
					c = ascii.Lower(c)
				}
			}
			b = append(b, c)
		}
		s = s[n:]
	}
tail:
	if len(b) == 0 || len(b) > math.MaxUint16 {
		return 0, false
	}
	ncap, ok := lowerTail(p, s)
	if !ok {
		return 0, false
	}
	p.fold = fold && letters
	p.pat = string(b)
	if i := strings.Index(expr, p.pat); i >= 0 {
		p.pat = expr[i : i+len(p.pat)]
	}
	return ncap, true
}

// lowerTail sets p's tail from s, what follows the literal part of a
// regex, and returns its number of capture groups; it is false for a
// tail lowerFast does not recognise.
func lowerTail(p *litPattern, s string) (int, bool) {
	ncap := 0
	switch s {
	case "":
		p.tail = tailNone
	case "$":
		p.tail = tailEnd
	case "/?$":
		p.tail = tailSlashEnd
	case ".*":
		p.tail = tailAny
	case ".*$", ".*?$":
		p.tail = tailAnyEnd
	case "(.*)":
		p.tail, p.capture, ncap = tailAny, true, 1
	case "(.*)$", "(.*?)$":
		p.tail, p.capture, ncap = tailAnyEnd, true, 1
	default:
		return 0, false
	}
	return ncap, true
}

// regexMeta marks the characters that are not literals outside a class,
// but for '.' and '\\', which lowerFastInto reads itself; quantifier marks
// those that make the character before them optional or repeated.
var regexMeta, quantifier = byteSet(`$()*+?[]{}|^`), byteSet("*+?{")

func byteSet(s string) (set [256]bool) {
	for i := 0; i < len(s); i++ {
		set[s[i]] = true
	}
	return set
}

// isEscapedPunct reports whether `\c` is the literal c in Go's syntax: an
// ASCII punctuation character.
func isEscapedPunct(c byte) bool {
	return c > ' ' && c < utf8.RuneSelf && !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z')
}
