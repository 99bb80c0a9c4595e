package pcre

import "regexp/syntax"

// Regexp is a compiled pattern. It is immutable and safe for concurrent
// use.
type Regexp struct {
	expr   string
	prog   []inst
	sets   []byteSet
	strs   []string
	bstrs  [][]byte // strs, for searching without a conversion
	ncap   int
	nslots int // 2*(ncap+1) and the loop registers
	names  []string
	// Where a match may start, to skip the other places: only at 0
	// (anchored), at 0 and after each \n (a leading greedy .*, as PCRE
	// does), or at a byte of first (unless first is nil).
	anchored, lineStart bool
	first               *byteSet
	// need is a run of bytes every match holds (case as written): an
	// input without it is answered without running the program, as
	// PCRE's "last code unit" check does.
	need []byte
	// prefix is the literal every match starts with when anchored at 0.
	prefix string
}

// Compile parses a PCRE pattern as nginx's PCRE2 reads it (no UTF mode);
// caseInsensitive is nginx's ~* (PCRE2_CASELESS). The error, an *Error,
// names the construct and its byte offset.
func Compile(expr string, caseInsensitive bool) (*Regexp, error) {
	if len(expr) > MaxPatternBytes {
		return nil, &Error{Pos: MaxPatternBytes, Msg: "pattern is longer than the limit"}
	}
	p, _, err := parse(expr, caseInsensitive, -1) // counts the groups, for \10 and up
	if err != nil {
		return nil, err
	}
	p, n, err := parse(expr, caseInsensitive, p.ncap)
	if err != nil {
		return nil, err
	}
	c := &compiler{base: 2 * (p.ncap + 1)}
	c.emit(inst{op: opSave, x: 0}) // \K restores slot 0 when backtracked over
	c.node(n)
	c.emit(inst{op: opMatch})
	if c.err != nil {
		return nil, c.err
	}
	c.hints()
	re := &Regexp{expr: expr, prog: c.prog, sets: c.sets, strs: c.strs, ncap: p.ncap,
		nslots: c.base + c.regs, names: p.names}
	for _, s := range c.strs {
		re.bstrs = append(re.bstrs, []byte(s))
	}
	re.anchored = anchoredAt(n)
	re.lineStart = !hasBackref(n) && leadingDotStar(n)
	re.need = longestNeed(n, nil)
	if re.anchored {
		re.prefix = literalPrefix(n)
	}
	if f, nullable := firstSet(n); !nullable {
		re.first = &f
	}
	return re, nil
}

// MustCompile is Compile for patterns known to be good; it panics on an
// error. For tests and package-level patterns.
func MustCompile(expr string) *Regexp {
	re, err := Compile(expr, false)
	if err != nil {
		panic(err)
	}
	return re
}

// Size returns the number of instructions the pattern compiled to, for
// a caller's bound on the memory its rules take (about 24 bytes each).
func (re *Regexp) Size() int { return len(re.prog) }

// String returns the pattern.
func (re *Regexp) String() string { return re.expr }

// NumSubexp returns the number of capturing groups.
func (re *Regexp) NumSubexp() int { return re.ncap }

// SubexpNames returns the groups' names, "" for unnamed ones; [0] is the
// whole match's, always "". As regexp's: the slice must not be changed.
func (re *Regexp) SubexpNames() []string { return re.names }

// LiteralPrefix returns the bytes every match starts with when the
// pattern is anchored at the start (^ or \A), else "". An index may file
// the pattern under it.
func (re *Regexp) LiteralPrefix() string { return re.prefix }

// Required returns a run of bytes every match holds (compared with case),
// "" when none is known: an input without it cannot match.
func (re *Regexp) Required() string { return string(re.need) }

// Needs reports whether expr, a regex of the rule language (Go's RE2
// syntax), needs this engine: Go's regexp/syntax refuses it and Compile
// accepts it. A pattern RE2 accepts keeps the RE2 path, with RE2's
// meaning.
func Needs(expr string) bool {
	if _, err := syntax.Parse(expr, syntax.Perl); err == nil {
		return false
	}
	_, err := Compile(expr, false)
	return err == nil
}

// anchoredAt reports whether every match of n starts at offset 0.
func anchoredAt(n *node) bool {
	switch n.kind {
	case nAssert:
		return n.assert == aBegin
	case nConcat:
		return len(n.subs) > 0 && anchoredAt(n.subs[0])
	case nCapture, nAtomic:
		return anchoredAt(n.subs[0])
	case nAlt:
		for _, s := range n.subs {
			if !anchoredAt(s) {
				return false
			}
		}
		return true
	}
	return false
}

// leadingDotStar reports whether n starts with a greedy .* (not (?s)): a
// match can then start only at 0 or after a \n, since a later start
// reaches nothing the earlier one did not (without backreferences, which
// could tell the group's text apart).
func leadingDotStar(n *node) bool {
	switch n.kind {
	case nRepeat:
		return n.min == 0 && n.max < 0 && n.greedy && n.subs[0].kind == nSet && n.subs[0].set == setNotNL
	case nConcat:
		return len(n.subs) > 0 && leadingDotStar(n.subs[0])
	case nCapture:
		return leadingDotStar(n.subs[0])
	}
	return false
}

func hasBackref(n *node) bool {
	if n.kind == nBackref {
		return true
	}
	for _, s := range n.subs {
		if hasBackref(s) {
			return true
		}
	}
	return false
}

// firstSet returns the bytes a match of n can start with, and whether n
// can match empty (then any byte, or none, may follow).
func firstSet(n *node) (byteSet, bool) {
	switch n.kind {
	case nSet:
		return n.set, false
	case nConcat:
		var f byteSet
		for _, s := range n.subs {
			g, nullable := firstSet(s)
			f.union(&g)
			if !nullable {
				return f, false
			}
		}
		return f, true
	case nAlt:
		var f byteSet
		null := false
		for _, s := range n.subs {
			g, nullable := firstSet(s)
			f.union(&g)
			null = null || nullable
		}
		return f, null
	case nRepeat:
		f, nullable := firstSet(n.subs[0])
		return f, nullable || n.min == 0
	case nCapture, nAtomic:
		return firstSet(n.subs[0])
	case nBackref:
		return setAll, true
	}
	return byteSet{}, true // assertions, lookarounds (which restrict, never extend), \K
}

// longestNeed returns the longest run of plain literal bytes (no case
// folding) that every match of n holds: runs in its top-level sequence
// and in the groups of it that are neither repeated nor alternatives.
func longestNeed(n *node, best []byte) []byte {
	var run []byte
	keep := func() {
		if len(run) > len(best) {
			best = append([]byte(nil), run...)
		}
		run = run[:0]
	}
	var walk func(n *node)
	walk = func(n *node) {
		switch n.kind {
		case nSet:
			if b, ok := n.set.single(); ok {
				run = append(run, b)
				return
			}
			keep()
		case nConcat:
			for _, s := range n.subs {
				walk(s)
			}
		case nCapture, nAtomic:
			walk(n.subs[0])
		case nAssert, nLook, nEmpty:
			// empty-width: the bytes on either side are still adjacent
		default:
			keep()
		}
	}
	walk(n)
	keep()
	return best
}

// literalPrefix returns the plain literal bytes after the leading \A of
// n, which anchoredAt accepted.
func literalPrefix(n *node) string {
	if n.kind != nConcat {
		return ""
	}
	var b []byte
	for _, s := range n.subs[1:] {
		c, ok := s.set.single()
		if s.kind != nSet || !ok {
			break
		}
		b = append(b, c)
	}
	return string(b)
}
