package matcher

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"unicode"
)

// nginx runs its regexes on PCRE2 without UTF mode; Go's regexp, which
// the RE2 path follows, reads some patterns that both accept otherwise
// (each confirmed against a real nginx by matcher/pcre's
// TestNginxAgrees):
//
//   - an unbounded loop whose body can match empty: PCRE ends it at an
//     iteration that matched empty, so `^/(.*)+(.*)$` on "/xx" leaves $1
//     empty, where RE2 gives "xx";
//   - a repeat of a literal above 0x7F: PCRE repeats its last byte, so
//     `é?` is "\xC3\xA9?", which RE2 reads as an optional rune;
//   - `\v`: PCRE's vertical space class (\n \v \f \r \x85), RE2's one
//     byte 0x0B;
//   - `$` (without (?m)) also matches before a final newline in PCRE;
//   - PCRE reads bytes: `.` and `[^a]` are one byte, not a UTF-8 rune,
//     `\xE9` is a byte, and (?i) folds ASCII only (RE2's (?i)k matches
//     the Kelvin sign);
//   - PCRE2's `\s` holds \v, RE2's does not.
//
// The first three are differences of the pattern alone: such a regex of
// the nginx model runs on matcher/pcre. The others show only on some
// subjects (one ending in '\n', holding a byte above 0x7F, holding \v),
// which are rare in paths: a regex that can read them otherwise keeps
// the RE2 path, and runs on matcher/pcre for such a subject.

// The subjects on which a regex's RE2 reading may differ from PCRE's.
const (
	readsFinalNewline uint8 = 1 << iota // its `$` before a final '\n'
	readsHighBytes                      // '.', classes, literals and \B on bytes above 0x7F
	readsVT                             // its \s or \S on \v
)

// nginxReading reports whether the regex expr, re parsed, reads
// otherwise in PCRE than in RE2 whatever the subject (pcreOnly), else on
// which subjects it may (a set of reads* bits, 0 for none).
func nginxReading(expr string, re *syntax.Regexp) (pcreOnly bool, on uint8) {
	esc := escapes(expr)
	if esc&escV != 0 || holds(re, emptyLoop) || holds(re, repeatsHighLiteral) {
		return true, 0
	}
	if esc&escS != 0 {
		on |= readsVT
	}
	return false, on | treeReads(re)
}

// The escapes that escapes reports.
const (
	escV = 1 << iota // \v
	escS             // \s or \S
)

// escapes reports which of \v, \s and \S expr holds, outside and inside
// classes. Inside \Q...\E it may see one that is not: the regex then
// runs on PCRE, which reads it as nginx does anyway.
func escapes(expr string) (found int) {
	for i := 0; i+1 < len(expr); i++ {
		if expr[i] != '\\' {
			continue
		}
		i++
		switch expr[i] {
		case 'v':
			found |= escV
		case 's', 'S':
			found |= escS
		}
	}
	return found
}

// holds reports whether re or a node inside it is one that f reports.
func holds(re *syntax.Regexp, f func(*syntax.Regexp) bool) bool {
	if f(re) {
		return true
	}
	for _, s := range re.Sub {
		if holds(s, f) {
			return true
		}
	}
	return false
}

// emptyLoop reports whether re is an unbounded repeat (`*`, `+`,
// `{n,}`, lazy or not) whose body can match the empty string.
func emptyLoop(re *syntax.Regexp) bool {
	loop := re.Op == syntax.OpStar || re.Op == syntax.OpPlus || re.Op == syntax.OpRepeat && re.Max < 0
	return loop && canBeEmpty(re.Sub[0])
}

// repeatsHighLiteral reports whether re repeats (`*`, `+`, `?`,
// `{n,m}`) a literal above 0x7F.
func repeatsHighLiteral(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		x := re.Sub[0]
		return x.Op == syntax.OpLiteral && len(x.Rune) == 1 && x.Rune[0] > unicode.MaxASCII
	}
	return false
}

// canBeEmpty reports whether re can match the empty string (on some
// subject: its assertions are taken as holding).
func canBeEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0 || canBeEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !canBeEmpty(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if canBeEmpty(s) {
				return true
			}
		}
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return canBeEmpty(re.Sub[0])
	}
	return true // the empty match and the assertions
}

// treeReads is the reads* bits of re's nodes: readsFinalNewline for a
// `$`, readsHighBytes for what can match or look at a byte above 0x7F.
func treeReads(re *syntax.Regexp) (on uint8) {
	switch re.Op {
	case syntax.OpEndText:
		if re.Flags&syntax.WasDollar != 0 {
			on |= readsFinalNewline
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoWordBoundary:
		on |= readsHighBytes
	case syntax.OpCharClass:
		if n := len(re.Rune); n > 0 && re.Rune[n-1] > unicode.MaxASCII {
			on |= readsHighBytes
		}
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r > unicode.MaxASCII || re.Flags&syntax.FoldCase != 0 && foldsBeyondASCII(r) {
				on |= readsHighBytes
			}
		}
	case syntax.OpConcat:
		for i, s := range re.Sub {
			if !anyRunBetweenASCII(re.Sub, i) {
				on |= treeReads(s)
			}
		}
		return on
	}
	for _, s := range re.Sub {
		on |= treeReads(s)
	}
	return on
}

// anyRunBetweenASCII reports whether seq[i] (as in `^/docs/(.*)$`, most
// nginx regexes) reads bytes above 0x7F alike in RE2 and PCRE: a run of
// any bytes above 0x7F (`.*`, `[^/]+`, in a group or not) that starts
// after an ASCII literal or at the start and ends before an ASCII
// literal or at the end. Its ends then lie where a UTF-8 rune starts or
// ends whichever way the bytes are read, and any bytes above 0x7F are in
// it both as runes and as bytes, so both readings match the same bytes.
func anyRunBetweenASCII(seq []*syntax.Regexp, i int) bool {
	if !anyRun(seq[i]) || i == 0 || i == len(seq)-1 {
		return false
	}
	l, r := seq[i-1], seq[i+1]
	return (l.Op == syntax.OpBeginText || l.Op == syntax.OpBeginLine || asciiLiteral(l)) &&
		(r.Op == syntax.OpEndText || r.Op == syntax.OpEndLine || asciiLiteral(r))
}

// anyRun reports whether re is `x*` or `x+` (lazy or not, in groups or
// not) of an x that matches every rune or byte above 0x7F.
func anyRun(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpStar && re.Op != syntax.OpPlus {
		return false
	}
	switch x := re.Sub[0]; x.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true
	case syntax.OpCharClass:
		for j := 0; j+1 < len(x.Rune); j += 2 {
			if x.Rune[j] <= 0x80 && x.Rune[j+1] >= unicode.MaxRune {
				return true
			}
		}
	}
	return false
}

// asciiLiteral reports whether re is a literal of ASCII bytes, whose
// case folding (if any) stays in ASCII.
func asciiLiteral(re *syntax.Regexp) bool {
	if re.Op != syntax.OpLiteral || len(re.Rune) == 0 {
		return false
	}
	for _, r := range re.Rune {
		if r > unicode.MaxASCII || re.Flags&syntax.FoldCase != 0 && foldsBeyondASCII(r) {
			return false
		}
	}
	return true
}

// foldsBeyondASCII reports whether r's case folding orbit holds a rune
// above 0x7F (k and s do: the Kelvin sign, the long s).
func foldsBeyondASCII(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f > unicode.MaxASCII {
			return true
		}
	}
	return false
}

// subjectReads reports whether subject is one of those (on, reads* bits)
// on which a regex may read otherwise in RE2 than in PCRE.
func subjectReads(subject []byte, on uint8) bool {
	if n := len(subject); n > 0 && subject[n-1] == '\n' && on&readsFinalNewline != 0 {
		return true
	}
	return on > readsFinalNewline && scanReads(subject, on) // another bit than readsFinalNewline
}

// scanReads reports whether subject holds a byte above 0x7F (with
// readsHighBytes in on) or \v (with readsVT).
func scanReads(subject []byte, on uint8) bool {
	if on&readsVT != 0 && bytes.IndexByte(subject, '\v') >= 0 {
		return true
	}
	if on&readsHighBytes == 0 {
		return false
	}
	for len(subject) >= 8 {
		if binary.LittleEndian.Uint64(subject)&0x8080808080808080 != 0 {
			return true
		}
		subject = subject[8:]
	}
	for _, c := range subject {
		if c > unicode.MaxASCII {
			return true
		}
	}
	return false
}
