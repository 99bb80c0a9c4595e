package pcre

// nodeKind is what a node of a parsed pattern is.
type nodeKind uint8

const (
	nEmpty   nodeKind = iota
	nSet              // one byte of set (a literal is a set of one, or of its two cases)
	nConcat           // subs in order
	nAlt              // subs, first that leads to a match
	nRepeat           // subs[0], min to max (-1: no bound) times
	nCapture          // group cap around subs[0]
	nAtomic           // subs[0], its choice points dropped once it matched
	nLook             // behind/neg: a lookaround assertion of subs (alternatives)
	nBackref          // the text group cap matched, fold: ignoring ASCII case
	nAssert           // an empty-width assertion, assert
	nKeep             // \K: the match starts here
)

// assertKind is an empty-width assertion.
type assertKind uint8

const (
	aBegin     assertKind = iota // \A, ^ without (?m)
	aBeginLine                   // ^ with (?m)
	aEnd                         // \z
	aEndZ                        // \Z, $ without (?m): the end or before a final \n
	aEndLine                     // $ with (?m)
	aWord                        // \b
	aNotWord                     // \B
	aStart                       // \G: where this match attempt started
)

type node struct {
	kind       nodeKind
	set        byteSet
	subs       []*node
	min, max   int
	greedy     bool
	possessive bool
	cap        int
	behind     bool
	neg        bool
	fold       bool
	assert     assertKind
	target     *node // a backreference's group, once parsed
}

// nullable reports whether n can match the empty string.
func (n *node) nullable() bool {
	switch n.kind {
	case nSet:
		return false
	case nConcat:
		for _, s := range n.subs {
			if !s.nullable() {
				return false
			}
		}
		return true
	case nAlt:
		for _, s := range n.subs {
			if s.nullable() {
				return true
			}
		}
		return false
	case nRepeat:
		return n.min == 0 || n.subs[0].nullable()
	case nCapture, nAtomic:
		return n.subs[0].nullable()
	default: // empty, lookarounds, assertions, \K; a backreference may be empty
		return true
	}
}

// fixedLen returns the length of every match of n, for lookbehind, which
// PCRE2 (10.42, the one nginx links) runs only on fixed-length branches.
//
// A backreference counts as its group's length when that is fixed
// (PCRE2 10.23 and later); depth stops a group that refers to itself.
func (n *node) fixedLen() (int, bool) { return n.fixedLenAt(0) }

func (n *node) fixedLenAt(depth int) (int, bool) {
	if depth > maxDepth {
		return 0, false
	}
	switch n.kind {
	case nSet:
		return 1, true
	case nConcat:
		t := 0
		for _, s := range n.subs {
			l, ok := s.fixedLenAt(depth + 1)
			if !ok {
				return 0, false
			}
			t += l
		}
		return t, true
	case nAlt:
		l0 := -1
		for _, s := range n.subs {
			l, ok := s.fixedLenAt(depth + 1)
			if !ok || l0 >= 0 && l != l0 {
				return 0, false
			}
			l0 = l
		}
		return l0, true
	case nRepeat:
		l, ok := n.subs[0].fixedLenAt(depth + 1)
		if !ok || n.min != n.max {
			return 0, false
		}
		return l * n.min, true
	case nCapture, nAtomic:
		return n.subs[0].fixedLenAt(depth + 1)
	case nBackref:
		if n.target == nil {
			return 0, false
		}
		return n.target.fixedLenAt(depth + 1)
	case nKeep:
		return 0, false
	default:
		return 0, true
	}
}
