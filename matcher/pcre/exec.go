package pcre

import (
	"bytes"

	"github.com/redirectd/redirectd/internal/ascii"
)

// frame kinds on the backtracking stack
const (
	fChoice  = iota + 1 // go on at pc, pos
	fRestore            // slot a had value b
	fMark               // an atomic group or lookaround began at pos; pc continues a negative one, a its kind
	fGreedy             // a greedy repeat may give back bytes down to a; it now ends at pos
	fLazy               // a lazy repeat may take bytes of set b up to a; it now ends at pos
)

type frame struct {
	kind uint8
	hint int16
	pc   int32
	pos  int
	a, b int
}

// Scratch is the working memory of Match: the backtracking stack and the
// group slots. The zero value is ready; it grows to the largest need and
// is then reused, so that Match allocates nothing. Not safe for
// concurrent use.
type Scratch struct {
	stack []frame
	slots []int
}

// Match reports whether re matches input, searching leftmost-first as
// PCRE does, and fills caps (up to its length) with the match's and the
// groups' byte offsets, as regexp's FindSubmatchIndex, -1 for a group
// that took no part; without a match caps is left as it was. *budget is
// decremented by the steps spent (an instruction run, a choice point or
// saved slot undone, a start tried, 16 bytes scanned); when it reaches 0
// the match is abandoned: matched false, exhausted true. It allocates
// nothing once s has grown.
func (re *Regexp) Match(s *Scratch, input []byte, caps []int, budget *int) (matched, exhausted bool) {
	if cap(s.slots) < re.nslots {
		s.slots = make([]int, re.nslots)
	}
	slots := s.slots[:re.nslots]
	if len(re.need) > 1 && !bytes.Contains(input, re.need) {
		*budget -= len(input) / 16 // the scan
		return false, false
	}
	for start := 0; start <= len(input); start++ {
		if start > 0 {
			switch {
			case re.anchored:
				return false, false
			case re.lineStart:
				i := bytes.IndexByte(input[start-1:], '\n')
				if i < 0 {
					return false, false
				}
				start += i
			}
		}
		if re.first != nil {
			from := start
			for start < len(input) && !re.first.has(input[start]) {
				start++
			}
			*budget -= (start - from) / 16 // the scan
			if start == len(input) {
				return false, false
			}
		}
		if *budget <= 0 {
			return false, true
		}
		*budget--
		switch re.try(s, slots, input, start, budget) {
		case 1:
			for i := range caps {
				caps[i] = -1
				if i < 2*(re.ncap+1) {
					caps[i] = slots[i]
				}
			}
			return true, false
		case -1:
			return false, true
		}
	}
	return false, false
}

// try runs the program from start: 1 on a match (slots filled), 0 on
// none, -1 when the budget ran out; see the opcode comments in
// compile.go.
//
// Long because it is the interpreter's loop, running and backtracking:
// split into functions, every step would cost a call.
func (re *Regexp) try(s *Scratch, slots []int, input []byte, start int, budget *int) int {
	for i := range slots {
		slots[i] = -1
	}
	stack := s.stack[:0]
	prog := re.prog
	pc, pos := int32(0), start
	steps := *budget
	// done keeps the grown stack and reports the steps spent.
	done := func(r int) int {
		s.stack, *budget = stack[:0], steps
		return r
	}
	for {
		if steps <= 0 {
			return done(-1)
		}
		steps--
		in := &prog[pc]
		ok := true
		switch in.op {
		case opMatch:
			slots[1] = pos
			return done(1)
		case opByte:
			if ok = pos < len(input) && input[pos] == byte(in.x); ok {
				pos++
			}
		case opSet:
			if ok = pos < len(input) && re.sets[in.x].has(input[pos]); ok {
				pos++
			}
		case opStr:
			str := re.strs[in.x]
			if ok = len(input)-pos >= len(str); ok {
				if in.y == 0 {
					ok = string(input[pos:pos+len(str)]) == str
				} else {
					ok = ascii.EqualFold(input[pos:pos+len(str)], str)
				}
			}
			if ok {
				pos += len(str)
			}
		case opRepeat:
			var f frame
			pos, f, ok = re.repeat(in, input, pos, &steps)
			if ok && f.kind != 0 {
				f.pc = pc + 1
				stack = append(stack, f)
			}
		case opSplit:
			stack = append(stack, frame{kind: fChoice, pc: in.y, pos: pos})
			pc = in.x
			continue
		case opJmp:
			pc = in.x
			continue
		case opSave, opLoopSet:
			stack = append(stack, frame{kind: fRestore, a: int(in.x), b: slots[in.x]})
			slots[in.x] = pos
		case opLoopCheck:
			if slots[in.m] == pos {
				pc = in.y
			} else {
				pc = in.x
			}
			continue
		case opAssert:
			ok = assertAt(assertKind(in.x), input, pos, start)
		case opBackref:
			b, e := slots[2*in.x], slots[2*in.x+1]
			if ok = b >= 0 && e >= b && len(input)-pos >= e-b; ok {
				steps -= (e - b) / 16
				if in.y == 0 {
					ok = bytes.Equal(input[pos:pos+e-b], input[b:e])
				} else {
					ok = ascii.EqualFold(input[pos:pos+e-b], input[b:e])
				}
			}
			if ok {
				pos += e - b
			}
		case opMark:
			stack = append(stack, frame{kind: fMark, pc: in.y, pos: pos, a: int(in.x)})
		case opCut, opLookEnd:
			var mark frame
			stack, mark = cut(stack, &steps)
			if in.op == opLookEnd {
				pos = mark.pos
				ok = in.x == 0
			}
		case opBack:
			if ok = pos >= int(in.x); ok {
				pos -= int(in.x)
			}
		}
		if ok {
			pc++
			continue
		}
		// Backtrack: undo saved slots up to the latest choice point.
		for {
			if len(stack) == 0 {
				return done(0)
			}
			if steps <= 0 {
				return done(-1)
			}
			steps--
			f := &stack[len(stack)-1]
			switch f.kind {
			case fRestore:
				slots[f.a] = f.b
				stack = stack[:len(stack)-1]
				continue
			case fChoice:
				pc, pos = f.pc, f.pos
				stack = stack[:len(stack)-1]
			case fMark:
				stack = stack[:len(stack)-1]
				if f.a != markNegLook {
					continue
				}
				pc, pos = f.pc, f.pos // the negative lookaround's body failed: it holds
			case fGreedy:
				p, ok := re.giveBack(f, input, &steps)
				if !ok {
					stack = stack[:len(stack)-1]
					continue
				}
				pc, pos = f.pc, p
				if f.pos = p; p <= f.a {
					stack = stack[:len(stack)-1]
				}
			case fLazy:
				if f.pos >= f.a || !re.sets[f.b].has(input[f.pos]) {
					stack = stack[:len(stack)-1]
					continue
				}
				f.pos++
				pc, pos = f.pc, f.pos
			}
			break
		}
	}
}

// repeat runs an opRepeat at pos: where it ends, the frame to push (kind
// 0: none) and whether it matched.
func (re *Regexp) repeat(in *inst, input []byte, pos int, steps *int) (int, frame, bool) {
	set := &re.sets[in.x]
	limit := len(input)
	if in.m >= 0 && pos+int(in.m) < limit {
		limit = pos + int(in.m)
	}
	min := pos + int(in.n)
	if min > len(input) {
		return pos, frame{}, false
	}
	end := pos
	if in.y == lazy {
		for ; end < min; end++ {
			if !set.has(input[end]) {
				return pos, frame{}, false
			}
		}
		*steps -= int(in.n) / 16
		if end < limit {
			return end, frame{kind: fLazy, pos: end, a: limit, b: int(in.x)}, true
		}
		return end, frame{}, true
	}
	switch {
	case *set == setAll:
		end = limit
	case *set == setNotNL:
		if i := bytes.IndexByte(input[pos:limit], '\n'); i >= 0 {
			end = pos + i
		} else {
			end = limit
		}
	default:
		for end < limit && set.has(input[end]) {
			end++
		}
	}
	*steps -= (end - pos) / 16 // the scan, a step per 16 bytes
	if end < min {
		return pos, frame{}, false
	}
	if in.y == greedy && end > min {
		return end, frame{kind: fGreedy, pos: end, a: min, hint: in.hint}, true
	}
	return end, frame{}, true
}

// giveBack returns where greedy repeat f ends next, giving back bytes:
// one fewer, or, when what follows is known (f.hint), the last place
// before it where that is found; false when there is none.
func (re *Regexp) giveBack(f *frame, input []byte, steps *int) (int, bool) {
	switch {
	case f.hint > 0:
		i := bytes.LastIndexByte(input[f.a:f.pos], byte(f.hint-1))
		*steps -= (f.pos - f.a - i) / 16
		return f.a + i, i >= 0
	case f.hint < 0:
		str := re.bstrs[-1-f.hint]
		end := min(f.pos-1+len(str), len(input))
		i, calls := lastIndex(input[f.a:end], str)
		*steps -= (end-f.a)/16 + calls
		return f.a + i, i >= 0
	}
	return f.pos - 1, true
}

// lastIndex is bytes.LastIndex by forward searches, which use SIMD
// where LastIndex does not: on a path crafted to hold a rule's literal
// once, a backward search cost ten times as much.
// It also returns how many searches it made, one per occurrence, for
// the budget.
func lastIndex(s, sep []byte) (last, calls int) {
	last = -1
	for off := 0; ; {
		calls++
		i := bytes.Index(s[off:], sep)
		if i < 0 {
			return last, calls
		}
		last = off + i
		off = last + 1
	}
}

// cut ends an atomic group or lookaround: it drops the choice points
// above the latest mark, and the mark, keeping the saved slots (so that
// backtracking past the group still undoes its captures). It returns the
// mark.
func cut(stack []frame, steps *int) ([]frame, frame) {
	i := len(stack) - 1
	for i > 0 && stack[i].kind != fMark {
		i--
	}
	mark := stack[i]
	j := i
	for k := i + 1; k < len(stack); k++ {
		if stack[k].kind == fRestore {
			stack[j] = stack[k]
			j++
		}
	}
	*steps -= len(stack) - i
	return stack[:j], mark
}

// assertAt reports whether assertion a holds at pos; start is where the
// match attempt began (\G).
func assertAt(a assertKind, input []byte, pos, start int) bool {
	switch a {
	case aBegin:
		return pos == 0
	case aBeginLine:
		return pos == 0 || input[pos-1] == '\n'
	case aEnd:
		return pos == len(input)
	case aEndZ:
		return pos == len(input) || pos == len(input)-1 && input[pos] == '\n'
	case aEndLine:
		return pos == len(input) || input[pos] == '\n'
	case aWord, aNotWord:
		before := pos > 0 && isWordByte(input[pos-1])
		after := pos < len(input) && isWordByte(input[pos])
		return (before != after) == (a == aWord)
	case aStart:
		return pos == start
	}
	return false
}
