package matcher

import (
	"math/bits"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// The regex tier's bound on work (regex.go, realIndex.lookup): candidates
// run one by one on the backtracker, each in time linear in the path, but
// a path crafted from many regexes' literals makes hundreds of them
// candidates. Past workBudget backtracker steps, the candidates left are
// answered together in one pass over the path by setDFA: a lazily built
// DFA over all their programs at once, which tells which of them match
// anywhere. Only the earliest of those (in file order) whose conditions
// hold then runs on the backtracker, for its captures.
//
// The DFA's states are sets of the candidates' instructions, built as the
// path needs them and kept for the rest of the request, so that a path
// that repeats itself (which is what a path crafted from a few literals
// does) costs a table lookup per character. A state costs the work of
// one step of all its instructions once; states are capped
// (dfaMaxStates, dfaMaxIDs), and past the cap the cache starts over, so
// the worst case is one step of every live instruction per character,
// still linear in the path, and the memory bounded.

// workBudget is how many backtracker steps (visited states) one lookup
// spends on candidates one by one before it answers the rest in one pass:
// about a tenth of a millisecond. An ordinary request spends a few
// hundred; one unanchored regex run over an 8 KiB path, about 10,000.
const workBudget = 1 << 12

// runeClasses partitions the runes so that every instruction of an
// index's programs, and every empty-width condition, treats all the runes
// of one class alike: the DFA steps once per class, not per rune.
type runeClasses struct {
	ascii [utf8.RuneSelf]uint16
	// starts are the first runes of the classes, ascending (starts[0] is
	// 0): class c holds starts[c] up to starts[c+1]-1.
	starts []rune
}

// newRuneClasses returns the classes of progs.
func newRuneClasses(progs []*syntax.Prog) *runeClasses {
	cut := map[rune]bool{0: true}
	span := func(lo, hi rune) {
		cut[lo] = true
		if hi < unicode.MaxRune {
			cut[hi+1] = true
		}
	}
	// What EmptyOpContext tells apart: word characters and '\n'.
	span('0', '9')
	span('A', 'Z')
	span('_', '_')
	span('a', 'z')
	span('\n', '\n')
	for _, p := range progs {
		for i := range p.Inst {
			inst := &p.Inst[i]
			switch inst.Op {
			case syntax.InstRune1:
				span(inst.Rune[0], inst.Rune[0])
			case syntax.InstRune:
				instRunes(inst, func(r rune) { span(r, r) }, span)
			}
		}
	}
	c := &runeClasses{}
	for r := range cut {
		c.starts = append(c.starts, r)
	}
	slices.Sort(c.starts)
	for r := rune(0); r < utf8.RuneSelf; r++ {
		c.ascii[r] = uint16(c.find(r))
	}
	return c
}

// find returns the class of r by a search of starts.
func (c *runeClasses) find(r rune) int {
	i, found := slices.BinarySearch(c.starts, r)
	if found {
		return i
	}
	return i - 1
}

// of returns the class of r, a rune decodeStep returned (not noRune).
func (c *runeClasses) of(r rune) int {
	if r < utf8.RuneSelf {
		return int(c.ascii[r])
	}
	return c.find(r)
}

// dfaMaxStates and dfaMaxIDs cap one request's DFA: past either, its
// states are dropped and built again as needed.
const (
	dfaMaxStates = 2048
	dfaMaxIDs    = 1 << 18
	// dfaMaxTrans caps states times classes, the transition table.
	dfaMaxTrans = 1 << 20
)

// Before-context of a state: what EmptyOpContext needs of the rune
// before, one rune of each kind.
const (
	ctxBegin = noRune
	ctxNL    = '\n'
	ctxWord  = 'a'
	ctxOther = ' '
)

func ctxOf(r rune) rune {
	switch {
	case r == '\n':
		return ctxNL
	case syntax.IsWordChar(r):
		return ctxWord
	}
	return ctxOther
}

// sparseSet is a set of small integers that clears in constant time.
type sparseSet struct {
	dense, sparse []uint32
}

func (s *sparseSet) reset(n int) {
	if len(s.sparse) < n {
		s.sparse = make([]uint32, n)
	}
	s.dense = s.dense[:0]
}

func (s *sparseSet) has(i uint32) bool {
	d := s.sparse[i]
	return int(d) < len(s.dense) && s.dense[d] == i
}

func (s *sparseSet) add(i uint32) {
	s.sparse[i] = uint32(len(s.dense))
	s.dense = append(s.dense, i)
}

// setDFA answers which of a list of programs match an input. An
// instruction of program k is numbered base[k]+pc; a state is the sorted
// set of instructions to follow at a position, and the kind of rune
// before it. It lives in a Match and is reused from request to request.
type setDFA struct {
	progs []*syntax.Prog
	base  []uint32
	owner []int32 // the program of each instruction number
	// every holds the start of each unanchored program, followed at
	// every position; late the anchored programs whose input starts at
	// an offset (their stripped prefix), by offset.
	every []uint32
	late  []lateStart
	// matched has bit k set once program k matched.
	matched []uint64
	cls     *runeClasses
	ncls    int

	ids   []uint32 // the states' instructions
	start []int32  // state i's are ids[start[i]:start[i+1]]
	ctx   []rune   // state i's before-context
	trans []int32  // state i's next state for class c: trans[i*ncls+c], -1 unknown
	table []int32  // hash of a state's content: state+1, 0 empty
	// maxStates is the most states kept: dfaMaxStates, fewer when the
	// classes are so many that the transitions would pass dfaMaxTrans.
	maxStates int
	// capStates lowers maxStates when not 0, for tests of a full cache.
	capStates int

	visit, next sparseSet
	stack       []uint32
}

// lateStart is an instruction an anchored program starts with, followed
// from offset off.
type lateStart struct {
	off int
	id  uint32
}

// load readies d for the programs of rs, whose input is in (each a
// candidate rejects left in), with classes cls.
func (d *setDFA) load(rs []*rule, in []byte, cls *runeClasses) {
	d.progs, d.base, d.every, d.late = d.progs[:0], d.base[:0], d.every[:0], d.late[:0]
	d.cls, d.ncls = cls, len(cls.starts)
	d.matched = slices.Grow(d.matched[:0], len(rs)/64+1)[:len(rs)/64+1]
	clear(d.matched)
	n := uint32(0)
	d.owner = d.owner[:0]
	for k, r := range rs {
		p := r.prog
		d.progs = append(d.progs, p.prog)
		d.base = append(d.base, n)
		for range p.prog.Inst {
			d.owner = append(d.owner, int32(k))
		}
		start := n + uint32(p.prog.Start)
		n += uint32(len(p.prog.Inst))
		switch {
		case p.cond == ^syntax.EmptyOp(0):
		case p.cond&syntax.EmptyBeginText == 0:
			d.every = append(d.every, start)
		case len(p.strip) > 0:
			if len(in) >= len(p.strip) && string(in[:len(p.strip)]) == p.strip {
				d.lateStarts(k, len(p.strip))
			}
		default:
			d.late = append(d.late, lateStart{0, start})
		}
	}
	slices.SortStableFunc(d.late, func(a, b lateStart) int { return a.off - b.off })
	d.visit.reset(int(n))
	d.next.reset(int(n))
}

// lateStarts adds the instructions program k starts with, for an input
// starting at off: its leading \A holds there, though not in the whole
// input (stripPrefix leaves no other assertion about what comes before).
func (d *setDFA) lateStarts(k, off int) {
	prog, base := d.progs[k], d.base[k]
	d.visit.reset(len(d.owner))
	d.stack = append(d.stack[:0], uint32(prog.Start))
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.visit.has(base + pc) {
			continue
		}
		d.visit.add(base + pc)
		inst := &prog.Inst[pc]
		switch inst.Op {
		case syntax.InstNop, syntax.InstCapture:
			d.stack = append(d.stack, inst.Out)
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, inst.Out, inst.Arg)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg) == syntax.EmptyBeginText {
				d.stack = append(d.stack, inst.Out)
			} else {
				d.late = append(d.late, lateStart{off, base + pc})
			}
		default:
			d.late = append(d.late, lateStart{off, base + pc})
		}
	}
}

// flush drops every state.
func (d *setDFA) flush() {
	d.ids, d.start, d.ctx, d.trans = d.ids[:0], append(d.start[:0], 0), d.ctx[:0], d.trans[:0]
	// The table is a power of two (its probe masks the hash) at least
	// twice the states.
	d.maxStates = max(1, min(dfaMaxStates, dfaMaxTrans/d.ncls))
	if d.capStates > 0 {
		d.maxStates = min(d.maxStates, d.capStates)
	}
	size := 1 << bits.Len(uint(2*d.maxStates-1))
	if cap(d.table) < size {
		d.table = make([]int32, size)
	}
	d.table = d.table[:size]
	clear(d.table)
}

func hashState(ctx rune, ids []uint32) uint32 {
	h := uint32(ctx) * 0x9E3779B1
	for _, id := range ids {
		h = (h ^ id) * 0x01000193
	}
	return h
}

// intern returns the state of ids (sorted) and ctx, made if new; flushed
// reports that it dropped every other state to make room.
func (d *setDFA) intern(ids []uint32, ctx rune) (state int32, flushed bool) {
	mask := uint32(len(d.table) - 1)
	h := hashState(ctx, ids) & mask
	for ; d.table[h] != 0; h = (h + 1) & mask {
		s := d.table[h] - 1
		if d.ctx[s] == ctx && slices.Equal(d.ids[d.start[s]:d.start[s+1]], ids) {
			return s, false
		}
	}
	// Once emptied, the cache takes one state however big (a state holds
	// at most every instruction of the candidates).
	if len(d.ctx) > 0 && (len(d.ctx) >= d.maxStates || len(d.ids)+len(ids) > dfaMaxIDs) {
		d.flush()
		s, _ := d.intern(ids, ctx)
		return s, true
	}
	s := int32(len(d.ctx))
	d.table[h] = s + 1
	d.ids = append(d.ids, ids...)
	d.start = append(d.start, int32(len(d.ids)))
	d.ctx = append(d.ctx, ctx)
	for range d.ncls {
		d.trans = append(d.trans, -1)
	}
	return s, false
}

// step follows state s's instructions at a position where r comes next
// (noRune at the end), noting the programs that match there, and leaves
// in d.next the instructions to follow after r.
func (d *setDFA) step(s int32, r rune) {
	cond := syntax.EmptyOpContext(d.ctx[s], r)
	d.visit.dense = d.visit.dense[:0]
	d.next.dense = d.next.dense[:0]
	d.stack = append(d.stack[:0], d.ids[d.start[s]:d.start[s+1]]...)
	for len(d.stack) > 0 {
		id := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.visit.has(id) {
			continue
		}
		d.visit.add(id)
		k := d.owner[id]
		base := d.base[k]
		inst := &d.progs[k].Inst[id-base]
		switch inst.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, base+inst.Arg, base+inst.Out)
		case syntax.InstNop, syntax.InstCapture:
			d.stack = append(d.stack, base+inst.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^cond == 0 {
				d.stack = append(d.stack, base+inst.Out)
			}
		case syntax.InstMatch:
			d.matched[k/64] |= 1 << (k % 64)
		case syntax.InstRune1:
			if r == inst.Rune[0] {
				d.addNext(base + inst.Out)
			}
		case syntax.InstRune:
			if r != noRune && inst.MatchRune(r) {
				d.addNext(base + inst.Out)
			}
		case syntax.InstRuneAny:
			if r != noRune {
				d.addNext(base + inst.Out)
			}
		case syntax.InstRuneAnyNotNL:
			if r != noRune && r != '\n' {
				d.addNext(base + inst.Out)
			}
		}
	}
}

func (d *setDFA) addNext(id uint32) {
	if !d.next.has(id) {
		d.next.add(id)
	}
}

// run finds the programs that match in, leaving them in d.matched.
func (d *setDFA) run(in []byte) {
	d.flush()
	d.next.dense = d.next.dense[:0]
	li := 0
	for ; li < len(d.late) && d.late[li].off == 0; li++ {
		d.addNext(d.late[li].id)
	}
	for _, id := range d.every {
		d.addNext(id)
	}
	slices.Sort(d.next.dense)
	s, _ := d.intern(d.next.dense, ctxBegin)
	for pos := 0; pos < len(in); {
		if d.start[s] == d.start[s+1] && len(d.every) == 0 && li == len(d.late) {
			return // nothing left to follow
		}
		r, w, c := rune(in[pos]), 1, 0
		if r < utf8.RuneSelf {
			c = int(d.cls.ascii[r])
		} else {
			r, w = decodeStep(in, pos)
			c = d.cls.of(r)
		}
		t := d.trans[int(s)*d.ncls+c]
		pos += w
		if t < 0 || li < len(d.late) && d.late[li].off == pos {
			d.step(s, r)
			for _, id := range d.every {
				d.addNext(id)
			}
			cached := t < 0
			for ; li < len(d.late) && d.late[li].off == pos; li++ {
				d.addNext(d.late[li].id)
				cached = false
			}
			slices.Sort(d.next.dense)
			from := s
			var flushed bool
			s, flushed = d.intern(d.next.dense, ctxOf(r))
			if cached && !flushed {
				d.trans[int(from)*d.ncls+c] = s
			}
			continue
		}
		s = t
	}
	d.step(s, noRune)
}

// matches reports whether program k matched in the last run.
func (d *setDFA) matches(k int) bool { return d.matched[k/64]&(1<<(k%64)) != 0 }
