package pcre

// opcode is an instruction of a compiled pattern.
type opcode uint8

const (
	opMatch     opcode = iota
	opByte             // input byte x
	opSet              // a byte of sets[x]
	opStr              // strs[x], ASCII case ignored when y is 1
	opRepeat           // sets[x] n to m (-1: no bound) times, mode y; next literal byte in hint
	opSplit            // go on at x, on failure at y
	opJmp              // go on at x
	opSave             // slot x = position
	opAssert           // assertion x
	opBackref          // the text of group x, ASCII case ignored when y is 1
	opMark             // push a mark of kind x, y the pc after a negative lookaround
	opCut              // the end of an atomic group: drop its choice points
	opLookEnd          // the end of a lookaround's body: x 1 when negative
	opBack             // step back x bytes (a lookbehind branch)
	opLoopSet          // slot x = position (an iteration of a loop that may match empty starts)
	opLoopCheck        // an empty iteration leaves the loop at y; else go on at x
)

// repeat modes
const (
	greedy = iota
	lazy
	possessive
)

// mark kinds
const (
	markAtomic = iota
	markLook
	markNegLook
)

type inst struct {
	op   opcode
	y    int32
	x    int32
	n, m int32
	// hint, on a greedy opRepeat, is what must follow it: a byte (+1),
	// or a string (-1 - its index in strs); 0 when nothing is known.
	hint int16
}

// compiler emits a program from a parsed pattern.
type compiler struct {
	prog []inst
	sets []byteSet
	strs []string
	regs int // loop registers, slots after the groups'
	base int // first loop register slot
	err  error
}

func (c *compiler) emit(in inst) int {
	if len(c.prog) >= maxInsts {
		if c.err == nil {
			c.err = &Error{Msg: "pattern compiles to too many instructions (counted repeats unrolled)"}
		}
		return len(c.prog) - 1
	}
	c.prog = append(c.prog, in)
	return len(c.prog) - 1
}

func (c *compiler) setIndex(s *byteSet) int32 {
	for i := range c.sets {
		if c.sets[i] == *s {
			return int32(i)
		}
	}
	c.sets = append(c.sets, *s)
	return int32(len(c.sets) - 1)
}

// literal reports whether n is one byte, or one ASCII letter in either
// case (fold), and which (lower case when folded).
func literal(n *node) (byte, bool, bool) {
	if n.kind != nSet {
		return 0, false, false
	}
	if b, ok := n.set.single(); ok {
		return b, false, true
	}
	for c := byte('a'); c <= 'z'; c++ {
		if n.set.has(c) {
			var t byteSet
			t.add(c)
			t.add(c - 'a' + 'A')
			return c, true, t == n.set
		}
	}
	return 0, false, false
}

// node emits n.
func (c *compiler) node(n *node) {
	if c.err != nil {
		return
	}
	switch n.kind {
	case nEmpty:
	case nSet:
		if b, fold, ok := literal(n); ok && !fold {
			c.emit(inst{op: opByte, x: int32(b)})
		} else {
			c.emit(inst{op: opSet, x: c.setIndex(&n.set)})
		}
	case nConcat:
		c.concat(n.subs)
	case nAlt:
		c.alt(n.subs)
	case nRepeat:
		c.repeat(n)
	case nCapture:
		c.emit(inst{op: opSave, x: int32(2 * n.cap)})
		c.node(n.subs[0])
		c.emit(inst{op: opSave, x: int32(2*n.cap + 1)})
	case nAtomic:
		c.emit(inst{op: opMark, x: markAtomic})
		c.node(n.subs[0])
		c.emit(inst{op: opCut})
	case nLook:
		c.look(n)
	case nBackref:
		c.emit(inst{op: opBackref, x: int32(n.cap), y: b2i(n.fold)})
	case nAssert:
		c.emit(inst{op: opAssert, x: int32(n.assert)})
	case nKeep:
		c.emit(inst{op: opSave, x: 0})
	}
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// concat emits subs, runs of literal bytes as one string each.
func (c *compiler) concat(subs []*node) {
	for i := 0; i < len(subs); {
		b, fold, ok := literal(subs[i])
		if !ok {
			c.node(subs[i])
			i++
			continue
		}
		run := []byte{b}
		anyFold, plainLetter := fold, !fold && isLetter(b)
		j := i + 1
		for ; j < len(subs); j++ {
			b, f, ok := literal(subs[j])
			// A run compares with case folded or not: a folded letter
			// and a plain one cannot share it; other bytes join either.
			if !ok || f && plainLetter || !f && isLetter(b) && anyFold {
				break
			}
			anyFold = anyFold || f
			plainLetter = plainLetter || !f && isLetter(b)
			run = append(run, b)
		}
		if len(run) == 1 {
			c.node(subs[i])
		} else {
			c.strs = append(c.strs, string(run))
			c.emit(inst{op: opStr, x: int32(len(c.strs) - 1), y: b2i(anyFold)})
		}
		i = j
	}
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// alt emits alternatives tried in order.
func (c *compiler) alt(subs []*node) {
	var jumps []int
	for i, s := range subs {
		if i == len(subs)-1 {
			c.node(s)
			break
		}
		split := c.emit(inst{op: opSplit})
		c.prog[split].x = int32(len(c.prog))
		c.node(s)
		jumps = append(jumps, c.emit(inst{op: opJmp}))
		c.prog[split].y = int32(len(c.prog))
	}
	for _, j := range jumps {
		c.prog[j].x = int32(len(c.prog))
	}
}

// look emits a lookaround: a mark, the branches (each stepping back its
// length first when behind), the end that drops the branches' choice
// points and returns to the mark's position.
func (c *compiler) look(n *node) {
	kind := int32(markLook)
	if n.neg {
		kind = markNegLook
	}
	mark := c.emit(inst{op: opMark, x: kind})
	var jumps []int
	for i, s := range n.subs {
		split := -1
		if i < len(n.subs)-1 {
			split = c.emit(inst{op: opSplit})
			c.prog[split].x = int32(len(c.prog))
		}
		if n.behind {
			l, _ := s.fixedLen()
			c.emit(inst{op: opBack, x: int32(l)})
		}
		c.node(s)
		if split >= 0 {
			jumps = append(jumps, c.emit(inst{op: opJmp}))
			c.prog[split].y = int32(len(c.prog))
		}
	}
	for _, j := range jumps {
		c.prog[j].x = int32(len(c.prog))
	}
	c.emit(inst{op: opLookEnd, x: b2i(n.neg)})
	c.prog[mark].y = int32(len(c.prog))
}

// repeat emits a quantified item: one instruction for a single byte
// (class), else the item unrolled min times and then a loop or the
// optional copies, wrapped in an atomic group when possessive.
func (c *compiler) repeat(n *node) {
	sub := n.subs[0]
	mode := int32(greedy)
	if n.possessive {
		mode = possessive
	} else if !n.greedy {
		mode = lazy
	}
	if sub.kind == nSet {
		c.emit(inst{op: opRepeat, x: c.setIndex(&sub.set), n: int32(n.min), m: int32(n.max), y: mode})
		return
	}
	if n.possessive {
		c.emit(inst{op: opMark, x: markAtomic})
	}
	for k := 0; k < n.min && c.err == nil; k++ {
		c.node(sub)
	}
	if n.max < 0 {
		c.loop(sub, n.greedy || n.possessive)
	} else {
		var outs []int
		for k := n.min; k < n.max && c.err == nil; k++ {
			outs = append(outs, c.optional(n.greedy || n.possessive))
			c.node(sub)
		}
		for _, o := range outs {
			c.setOut(o)
		}
	}
	if n.possessive {
		c.emit(inst{op: opCut})
	}
}

// optional emits the split before an optional copy; setOut points its
// other way at what follows.
func (c *compiler) optional(greedy bool) int {
	return c.emit(inst{op: opSplit, x: int32(len(c.prog) + 1), y: b2i(greedy) - 2})
}

func (c *compiler) setOut(split int) {
	in := &c.prog[split]
	if in.y == -1 { // greedy: x enters, y leaves
		in.y = int32(len(c.prog))
	} else {
		in.y, in.x = in.x, int32(len(c.prog))
	}
}

// loop emits sub repeated any number of times. An iteration that matched
// the empty string ends the loop, as in PCRE, which is also what keeps
// (a*)* from looping for ever.
func (c *compiler) loop(sub *node, greedy bool) {
	top := c.optional(greedy)
	reg := -1
	if sub.nullable() {
		reg = c.base + c.regs
		c.regs++
		c.emit(inst{op: opLoopSet, x: int32(reg)})
	}
	c.node(sub)
	if reg >= 0 {
		check := c.emit(inst{op: opLoopCheck, x: int32(top), m: int32(reg)})
		c.setOut(top)
		c.prog[check].y = int32(len(c.prog))
		return
	}
	c.emit(inst{op: opJmp, x: int32(top)})
	c.setOut(top)
}

// hints records, for each greedy opRepeat followed by a literal byte,
// that byte: giving back the repeat's bytes one at a time then skips to
// the places where the byte is.
func (c *compiler) hints() {
	for i := range c.prog {
		in := &c.prog[i]
		if in.op != opRepeat || in.y != greedy {
			continue
		}
		j := i + 1 // a group's end comes between (.*) and what follows
		for j < len(c.prog) && c.prog[j].op == opSave {
			j++
		}
		if j == len(c.prog) {
			continue
		}
		switch next := c.prog[j]; next.op {
		case opByte:
			in.hint = int16(next.x) + 1
		case opStr:
			if next.y == 0 && next.x < 1<<14 {
				in.hint = -1 - int16(next.x)
			}
		}
	}
}
