package pcre

import (
	"strconv"
	"strings"
)

// assertEscapes are the escapes that assert a position (\A, \z, ...).
var assertEscapes = map[byte]assertKind{
	'A': aBegin, 'z': aEnd, 'Z': aEndZ, 'b': aWord, 'B': aNotWord, 'G': aStart,
}

// escape parses an escape outside a class, from its backslash.
func (p *parser) escape() (*node, error) {
	at := p.i
	p.i++
	if !p.more() {
		return nil, p.errf(at, "\\ at end of pattern")
	}
	c := p.peek()
	p.i++
	set := func(s *byteSet, neg bool) (*node, error) {
		n := &node{kind: nSet, set: *s}
		if neg {
			n.set.negate()
		}
		return n, nil
	}
	if t, neg, ok := classEscape(c); ok {
		return set(t, neg)
	}
	if a, ok := assertEscapes[c]; ok {
		return &node{kind: nAssert, assert: a}, nil
	}
	switch c {
	case 'N':
		if _, _, q := p.peekQuantifier(); p.more() && p.peek() == '{' && !q { // \N{2} is \N twice
			return nil, p.errf(at, "\\N{name} is not supported")
		}
		return set(&setNotNL, false)
	case 'K':
		if p.look > 0 {
			return nil, p.errf(at, "\\K is not allowed in lookarounds")
		}
		return &node{kind: nKeep}, nil
	case 'E': // a \E without \Q is ignored
		return nil, nil
	case 'Q':
		return p.quoted(), nil
	case 'R': // any newline sequence, atomically
		crlf := &node{kind: nConcat, subs: []*node{p.lit('\r'), p.lit('\n')}}
		one := &node{kind: nSet}
		for _, b := range []byte{'\n', '\v', '\f', '\r', 0x85} {
			one.set.add(b)
		}
		return &node{kind: nAtomic, subs: []*node{{kind: nAlt, subs: []*node{crlf, one}}}}, nil
	case 'g', 'k':
		return p.namedRef(at, c)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		j := p.i
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		v, err := strconv.Atoi(p.src[p.i-1 : j])
		if err == nil && (v < 10 || c >= '8' || p.total < 0 || v <= p.total) {
			p.i = j
			return p.numRef(at, v), nil
		}
		p.i--
		return p.lit(p.octal(3)), nil
	}
	p.i--
	b, err := p.charEscape(at)
	if err != nil {
		return nil, err
	}
	return p.lit(b), nil
}

// quoted parses \Q...\E (the \Q read): each byte a literal, the last one
// alone under a following quantifier. It returns a marked concat
// (min -1) that concat splices.
func (p *parser) quoted() *node {
	end := strings.Index(p.src[p.i:], `\E`)
	text := p.src[p.i:]
	if end >= 0 {
		text = text[:end]
		p.i += end + 2
	} else {
		p.i = len(p.src)
	}
	n := &node{kind: nConcat, min: -1}
	for k := 0; k < len(text); k++ {
		n.subs = append(n.subs, p.lit(text[k]))
	}
	return n
}

func (p *parser) numRef(at, v int) *node {
	n := &node{kind: nBackref, cap: v, fold: p.fl.i}
	p.refs = append(p.refs, ref{n: n, pos: at})
	return n
}

// namedRef parses \g1 \g{1} \g{-1} \g{name} \k<name> \k'name' \k{name}
// (the letter read).
func (p *parser) namedRef(at int, c byte) (*node, error) {
	if !p.more() {
		return nil, p.errf(at, "\\%c is not followed by a group reference", c)
	}
	open := p.peek()
	end := map[byte]byte{'{': '}', '<': '>', '\'': '\''}[open]
	if c == 'g' && (open == '<' || open == '\'') {
		return nil, p.errf(at, "\\g<...> (subroutine calls) is not supported")
	}
	if end != 0 {
		p.i++
	} else if c == 'k' {
		return nil, p.errf(at, "\\k is not followed by a braced, angle-bracketed, or quoted name")
	}
	j := p.i
	if j < len(p.src) && (p.src[j] == '-' || p.src[j] == '+') {
		j++
	}
	for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
		j++
	}
	if c == 'g' && j > p.i && (end == 0 || j < len(p.src) && p.src[j] == end) {
		v, err := strconv.Atoi(p.src[p.i:j])
		if err != nil || p.src[p.i] == '+' {
			return nil, p.errf(at, "invalid group reference")
		}
		p.i = j
		if end != 0 {
			p.i++
		}
		if v < 0 {
			v = p.ncap + 1 + v
		}
		if v == 0 {
			return nil, p.errf(at, "a group reference must not be zero")
		}
		return p.numRef(at, v), nil
	}
	if end == 0 {
		return nil, p.errf(at, "\\g is not followed by a group number or name")
	}
	name, err := p.name(end)
	if err != nil {
		return nil, err
	}
	n := &node{kind: nBackref, fold: p.fl.i}
	p.refs = append(p.refs, ref{n: n, name: name, pos: at})
	return n, nil
}

// octal reads up to max octal digits at p.i as one byte.
func (p *parser) octal(max int) byte {
	v := 0
	for k := 0; k < max && p.more() && p.peek() >= '0' && p.peek() <= '7'; k++ {
		v = v*8 + int(p.peek()-'0')
		p.i++
	}
	return byte(v)
}

// bracedCode parses the {digits} of \o{...} (base 8) or \x{...} (base
// 16), p.i on its '{'; why says more of a value too large, as PCRE2's
// message for that escape does.
func (p *parser) bracedCode(at int, esc byte, base int, why string) (byte, error) {
	end := strings.IndexByte(p.src[p.i:], '}')
	if end < 0 {
		return 0, p.errf(at, "missing closing brace after \\%c{", esc)
	}
	v, err := strconv.ParseUint(p.src[p.i+1:p.i+end], base, 32)
	if err != nil || v > 255 {
		return 0, p.errf(at, "character code point value in \\%c{} is too large%s or invalid", esc, why)
	}
	p.i += end + 1
	return byte(v), nil
}

// charEscape parses an escape that stands for one byte, p.i on the
// character after the backslash at at.
func (p *parser) charEscape(at int) (byte, error) {
	c := p.peek()
	p.i++
	switch c {
	case 'n':
		return '\n', nil
	case 't':
		return '\t', nil
	case 'r':
		return '\r', nil
	case 'f':
		return '\f', nil
	case 'a':
		return 7, nil
	case 'e':
		return 0x1b, nil
	case '0':
		return p.octal(2), nil
	case 'o':
		if !p.more() || p.peek() != '{' {
			return 0, p.errf(at, "missing opening brace after \\o")
		}
		return p.bracedCode(at, 'o', 8, "")
	case 'x':
		if p.more() && p.peek() == '{' {
			return p.bracedCode(at, 'x', 16, " (no UTF mode)")
		}
		v := 0
		for k := 0; k < 2 && p.more() && isHex(p.peek()); k++ {
			v = v*16 + hexVal(p.peek())
			p.i++
		}
		return byte(v), nil
	case 'c':
		if !p.more() || p.peek() >= 0x80 {
			return 0, p.errf(at, "\\c must be followed by a printable ASCII character")
		}
		b := p.peek()
		p.i++
		if b >= 'a' && b <= 'z' {
			b -= 'a' - 'A'
		}
		return b ^ 0x40, nil
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return 0, p.errf(at, "unrecognized or unsupported escape \\%c", c)
	}
	return c, nil // \ before any other byte is that byte
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// class parses [...] from its '['.
func (p *parser) class() (*node, error) {
	open := p.i
	p.i++
	n := &node{kind: nSet}
	neg := false
	if p.more() && p.peek() == '^' {
		neg = true
		p.i++
	}
	first := true
	for {
		if !p.more() {
			return nil, p.errf(open, "missing terminating ] for character class")
		}
		c := p.peek()
		if c == ']' && !first {
			p.i++
			break
		}
		first = false
		if c == '[' && strings.HasPrefix(p.src[p.i+1:], ":") {
			if end := strings.Index(p.src[p.i:], ":]"); end > 0 {
				name := p.src[p.i+2 : p.i+end]
				pneg := strings.HasPrefix(name, "^")
				s, ok := posix[strings.TrimPrefix(name, "^")]
				if !ok {
					return nil, p.errf(p.i, "unknown POSIX class name %q", name)
				}
				t := *s
				if pneg {
					t.negate()
				}
				n.set.union(&t)
				p.i += end + 2
				continue
			}
		}
		lo, s, err := p.classAtom()
		if err != nil {
			return nil, err
		}
		if s != nil {
			n.set.union(s)
			continue
		}
		if lo < 0 { // \E, or an empty \Q\E
			continue
		}
		if p.i+1 < len(p.src) && p.peek() == '-' && p.src[p.i+1] != ']' {
			save := p.i
			p.i++
			hi, hs, err := p.classAtom()
			if err != nil {
				return nil, err
			}
			if hs != nil || hi < 0 { // [a-\d]: '-' is a literal
				p.i = save
			} else {
				if hi < lo {
					return nil, p.errf(save, "range out of order in character class")
				}
				n.set.addRange(byte(lo), byte(hi))
				continue
			}
		}
		n.set.add(byte(lo))
	}
	if p.fl.i {
		n.set.fold()
	}
	if neg {
		n.set.negate()
	}
	return n, nil
}

// classAtom reads one member of a class: a byte (lo), or a set (an
// escape such as \d), or neither (-1, nil) for \E. A \Q...\E run inside a
// class gives its first byte and leaves the rest to be read as plain
// bytes, which is what it means there.
func (p *parser) classAtom() (int, *byteSet, error) {
	c := p.peek()
	if c != '\\' {
		p.i++
		return int(c), nil, nil
	}
	at := p.i
	p.i++
	if !p.more() {
		return 0, nil, p.errf(at, "\\ at end of pattern")
	}
	c = p.peek()
	var s byteSet
	set := func(t *byteSet, neg bool) (int, *byteSet, error) {
		p.i++
		s = *t
		if neg {
			s.negate()
		}
		return -1, &s, nil
	}
	if t, neg, ok := classEscape(c); ok {
		return set(t, neg)
	}
	switch c {
	case 'b':
		p.i++
		return '\b', nil, nil
	case 'E':
		p.i++
		return -1, nil, nil
	case 'Q':
		p.i++
		end := strings.Index(p.src[p.i:], `\E`)
		if end == 0 {
			p.i += 2
			return -1, nil, nil
		}
		if end < 0 {
			return 0, nil, p.errf(at, "missing terminating ] for character class")
		}
		// The quoted bytes become members one by one: put the rest back
		// with escapes so that ] and - inside stay literal.
		var all byteSet
		for k := 0; k < end; k++ {
			all.add(p.src[p.i+k])
		}
		p.i += end + 2
		return -1, &all, nil
	case 'N', 'R', 'X', 'B', 'A', 'z', 'Z', 'G', 'K', 'g', 'k', 'p', 'P':
		return 0, nil, p.errf(at, "escape \\%c is not allowed or not supported in a character class", c)
	}
	if c >= '1' && c <= '9' {
		return int(p.octal(3)), nil, nil
	}
	b, err := p.charEscape(at)
	if err != nil {
		return 0, nil, err
	}
	return int(b), nil, nil
}

// classEscape returns the set a class escape names (\d \w \s \h \v, as
// ASCII as PCRE2 without UTF reads them) and whether its upper-case form
// negates it; ok is false for any other byte. Escapes inside and outside
// brackets share it.
func classEscape(c byte) (set *byteSet, neg, ok bool) {
	switch c {
	case 'd', 'D':
		return &setDigit, c == 'D', true
	case 'w', 'W':
		return &setWord, c == 'W', true
	case 's', 'S':
		return &setSpace, c == 'S', true
	case 'h', 'H':
		return &setH, c == 'H', true
	case 'v', 'V':
		return &setV, c == 'V', true
	}
	return nil, false, false
}
