package matcher

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// byteSet256 is a set of bytes, one bit each.
type byteSet256 [4]uint64

func (s *byteSet256) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet256) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }
func (s *byteSet256) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

// firstBytes returns the bytes an anchored program's match can start with
// at offset 0 of its input, and false when it cannot tell: the program
// may match the empty string there, starts with an assertion other than
// \A, or with a wildcard. Hand-written maps hold many regexes with no
// literal to filter by but a class (`^/[Gg][Pp][Tt]-?4.*$`, its "/"
// stripped), which fail on their first byte for almost every path: the
// set rejects those without running the backtracker.
func firstBytes(prog *syntax.Prog) (byteSet256, bool) {
	var set byteSet256
	seen := make(map[uint32]bool)
	work := []uint32{uint32(prog.Start)}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		inst := &prog.Inst[pc]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			work = append(work, inst.Out, inst.Arg)
		case syntax.InstCapture, syntax.InstNop:
			work = append(work, inst.Out)
		case syntax.InstEmptyWidth:
			// Only \A holds at offset 0 whatever the input; the caller
			// checks that the program is anchored.
			if syntax.EmptyOp(inst.Arg) != syntax.EmptyBeginText {
				return set, false
			}
			work = append(work, inst.Out)
		case syntax.InstFail:
		case syntax.InstRune1:
			addFirstByte(&set, inst.Rune[0])
		case syntax.InstRune:
			instRunes(inst, func(r rune) { addFirstByte(&set, r) }, set.addRunes)
		default: // InstMatch, InstRuneAny, InstRuneAnyNotNL
			return set, false
		}
	}
	return set, true
}

// instRunes calls one with the rune of a one-rune InstRune, and with
// each of its other cases under FoldCase; for a class, it calls spans
// with each range.
func instRunes(inst *syntax.Inst, one func(rune), spans func(lo, hi rune)) {
	rs := inst.Rune
	if len(rs) == 1 {
		withFolds(rs[0], syntax.Flags(inst.Arg)&syntax.FoldCase != 0, one)
		return
	}
	for i := 0; i+1 < len(rs); i += 2 {
		spans(rs[i], rs[i+1])
	}
}

// withFolds calls f with r and, when fold, with each other case of r
// (unicode.SimpleFold's orbit).
func withFolds(r rune, fold bool, f func(rune)) {
	f(r)
	if fold {
		for g := unicode.SimpleFold(r); g != r; g = unicode.SimpleFold(g) {
			f(g)
		}
	}
}

// addRunes adds the bytes that the runes lo to hi start or end with as
// the backtracker reads them: the ASCII ones themselves, and for any
// other every byte of 0x80 and up (those of multi-byte runes, and the
// invalid bytes read as U+FFFD).
func (s *byteSet256) addRunes(lo, hi rune) {
	if lo < utf8.RuneSelf {
		s.addRange(byte(lo), byte(min(hi, utf8.RuneSelf-1)))
	}
	if hi >= utf8.RuneSelf {
		s.addRange(0x80, 0xFF)
	}
}

// addFirstByte adds the first byte of r as the backtracker reads it: an
// ASCII rune is its byte; any other starts with a byte of 0x80 and up, as
// do the invalid bytes that U+FFFD matches.
func addFirstByte(set *byteSet256, r rune) {
	if r >= 0 && r < utf8.RuneSelf {
		set.add(byte(r))
		return
	}
	set.addRange(0x80, 0xFF)
}

// lastBytes returns the bytes a match of re can end with, and false when
// it cannot tell (re may match the empty string, or ends in a wildcard).
// For a regex anchored at the end (`^/.+/[0-9]+\.[0-9]+em$`) the input's
// last byte must be among them.
func lastBytes(re *syntax.Regexp) (byteSet256, bool) {
	var set byteSet256
	ok := addLastBytes(&set, re)
	return set, ok
}

func addLastBytes(set *byteSet256, re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return false
		}
		withFolds(re.Rune[len(re.Rune)-1], re.Flags&syntax.FoldCase != 0, func(r rune) { addLastByte(set, r) })
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			set.addRunes(re.Rune[i], re.Rune[i+1])
		}
		return true
	case syntax.OpCapture, syntax.OpPlus:
		return addLastBytes(set, re.Sub[0])
	case syntax.OpRepeat:
		return re.Min >= 1 && addLastBytes(set, re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if !addLastBytes(set, s) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		// The last part that must consume something decides, if nothing
		// after it but end assertions can.
		for i := len(re.Sub) - 1; i >= 0; i-- {
			switch s := re.Sub[i]; s.Op {
			case syntax.OpEndText, syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
				continue
			default:
				return addLastBytes(set, s)
			}
		}
	}
	return false
}

// addLastByte adds the last byte of r as the input holds it: an ASCII rune
// is its byte; any other ends with a byte of 0x80 and up, as do the
// invalid bytes that U+FFFD matches.
func addLastByte(set *byteSet256, r rune) { addFirstByte(set, r) }

// maxBytes returns the most bytes a match of re can span, and false when
// there is no bound (a star, a plus, an open repeat).
func maxBytes(re *syntax.Regexp) (int, bool) {
	const big = 1 << 20
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return 0, true
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += maxRuneBytes(r, re.Flags&syntax.FoldCase != 0)
		}
		return n, true
	case syntax.OpCharClass:
		n := 0
		for i := 1; i < len(re.Rune); i += 2 {
			n = max(n, runeBytes(re.Rune[i]))
		}
		return n, true
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax, true
	case syntax.OpCapture, syntax.OpQuest:
		return maxBytes(re.Sub[0])
	case syntax.OpRepeat:
		n, ok := maxBytes(re.Sub[0])
		if !ok || re.Max < 0 || n*re.Max > big {
			return 0, false
		}
		return n * re.Max, true
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range re.Sub {
			n, ok := maxBytes(s)
			if !ok {
				return 0, false
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
			if total > big {
				return 0, false
			}
		}
		return total, true
	}
	return 0, false // OpStar, OpPlus
}

// runeBytes is the length of r in UTF-8; an invalid byte, which U+FFFD
// matches, is shorter.
func runeBytes(r rune) int {
	if n := utf8.RuneLen(r); n > 0 {
		return n
	}
	return utf8.UTFMax
}

// maxRuneBytes is runeBytes of the longest rune r matches, folded or not.
func maxRuneBytes(r rune, fold bool) int {
	n := runeBytes(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			n = max(n, runeBytes(f))
		}
	}
	return n
}
