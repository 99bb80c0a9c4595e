package matcher

// This file is adapted from the Go standard library's bounded backtracker,
// src/regexp/backtrack.go, Copyright 2015 The Go Authors, used under the
// BSD-style license in the Go distribution's LICENSE file.
//
// Why a port rather than regexp.FindSubmatchIndex: that method appends its
// result to a fresh slice on every match, and package regexp has no API that
// takes a caller-owned capture buffer. Running the same compiled
// syntax.Prog through this backtracker, with the capture slice and all working
// memory owned by the caller, lets a match allocate nothing once Scratch has
// grown.
//
// Differences from the original:
//   - No size limit. The original bounds the visited bitmap to
//     maxBacktrackVector (256 Ki bits) and falls back to the NFA beyond it;
//     a fallback would allocate, so the bitmap here grows to
//     len(prog.Inst)*(len(input)+1) bits. URL paths of at most ~16 KiB and
//     programs of a few hundred instructions need a few MB at worst, kept in
//     Scratch and reused.
//   - Leftmost-first only (no Longest mode), which is what
//     regexp.Compile and FindSubmatchIndex use.
//   - The capture registers are the caller's caps slice itself: a
//     leftmost-first search stops at the first InstMatch, so no separate
//     best-match copy is needed, and a failed start position leaves every
//     register restored by its undo job.

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/redirectd/redirectd/matcher/pcre"
)

// noRune is what decodeStep and emptyOpAt report past either end of the input,
// the same sentinel regexp uses (syntax.EmptyOpContext treats r < 0 as the
// text boundary).
const noRune rune = -1

// visitedWordBits is the width of one word of the visited bitmap.
const visitedWordBits = 32

// program is one regex compiled for allocation-free matching.
// It is immutable after compileProgram and safe for concurrent use; all
// per-match state lives in Scratch.
type program struct {
	prog *syntax.Prog
	// pcre runs the regex when RE2 refused it (regex_pcre.go); prog is
	// then a stand-in that matches anything.
	pcre *pcre.Regexp
	// numCap is regexp.Regexp.NumSubexp: the count from the parsed
	// expression before Simplify, which can drop groups (`(a){0}`) from prog
	// while regexp still reports them, as -1.
	numCap int
	// names are the group names as regexp.SubexpNames returns them.
	names []string
	// literal is what every match of an anchored expression starts with;
	// the regex index files the rule under it.
	literal string
	// strip is the literal prefix left out of prog (compileStripped).
	strip string
	// expr is the expression as written; big is what matchBig compiles of
	// it, once, for inputs too long for the visited bitmap.
	expr string
	big  atomic.Pointer[regexp.Regexp]
	// required are literals every match holds, for the regex index's gram
	// filter; need is the longest, which a candidate's input must contain
	// before the backtracker runs.
	required []string
	need     []byte
	// short are up to four literals of one or two bytes that every match
	// holds, checked as need is.
	short [][]byte
	// cond holds the empty-width conditions every match starts with;
	// EmptyBeginText means the search is anchored at offset 0, and
	// ^syntax.EmptyOp(0) means the program can never match.
	cond syntax.EmptyOp
	// prefix is the literal every unanchored match starts with, so the
	// search can skip to its next occurrence with bytes.Index instead of
	// trying every offset, as regexp does.
	prefix []byte
	// first holds the bytes a match of an anchored program starts with,
	// at offset len(strip) of the input, when hasFirst (firstBytes); last
	// those it ends with, when hasLast, and maxLen the most bytes it
	// spans (-1: no bound), both for an expression anchored at both ends,
	// whose match is the whole input.
	first, last       byteSet256
	hasFirst, hasLast bool
	// starts holds the (ASCII) bytes an unanchored match starts with,
	// when hasStarts: the search skips the offsets holding others, as
	// PCRE's start bitmap does, rather than backtracking from each.
	starts    byteSet256
	hasStarts bool
	maxLen    int
	// suffix is the literal every match of an expression anchored at both
	// ends finishes with (case-sensitive only).
	suffix []byte
}

// rejects reports whether the first or last byte or the length of input
// rule out a match, without running the program: most of the regexes a
// real site's map holds without a literal to file them under fail there
// on almost every path.
func (p *program) rejects(input []byte) bool {
	// The literal after ^, left out of the program, and the one before $:
	// a path crafted to hold many regexes' literals makes candidates of
	// only those whose beginning and ending it has.
	if n := len(p.strip); n > 0 && (len(input) < n || string(input[:n]) != p.strip) {
		return true
	}
	if p.hasFirst {
		n := len(p.strip)
		if len(input) <= n || !p.first.has(input[n]) {
			return true
		}
	}
	if p.maxLen >= 0 && len(input) > p.maxLen {
		return true
	}
	if len(p.suffix) > 0 && !bytes.HasSuffix(input, p.suffix) {
		return true
	}
	return p.hasLast && (len(input) == 0 || !p.last.has(input[len(input)-1]))
}

// compileProgram compiles expr with the same flags as regexp.Compile
// (syntax.Perl) and simplification as regexp does.
func compileProgram(expr string) (*program, error) {
	return compileStripped(expr, false)
}

// compileStripped is compileProgram, except that with strip an anchored
// expression's literal prefix is left out of the program (see stripPrefix):
// the caller compares it and runs the program on the rest of the input.
func compileStripped(expr string, strip bool) (*program, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return compileParsed(expr, re, strip)
}

// compileParsed is compileStripped for expr already parsed (as re, with
// syntax.Perl), which it does not change.
func compileParsed(expr string, re *syntax.Regexp, strip bool) (*program, error) {
	// Simplify expands counted repetitions: one far past the limit is
	// refused before it is (estimateInsts overstates by at most about 2x).
	if n := estimateInsts(re); n > 4*maxProgramInsts {
		return nil, fmt.Errorf("compiles to about %d instructions, more than the %d allowed; split it into simpler rules", n, maxProgramInsts)
	}
	numCap := re.MaxCap()
	names := re.CapNames()
	re = re.Simplify()
	lit := literalPrefix(re)
	compiled, stripped := re, ""
	if strip {
		compiled, stripped = stripPrefix(re, lit)
	}
	prog, err := syntax.Compile(compiled)
	if err != nil {
		return nil, err
	}
	// The program is kept for as long as the Set: not with the spare
	// capacity its growing instruction slice was left with.
	prog.Inst = slices.Clone(prog.Inst)
	if len(prog.Inst) > maxProgramInsts {
		return nil, fmt.Errorf("compiles to %d instructions, more than the %d allowed; split it into simpler rules", len(prog.Inst), maxProgramInsts)
	}
	p := &program{prog: prog, numCap: numCap, names: names, literal: lit, strip: stripped, expr: expr,
		required: requiredLiterals(re), cond: prog.StartCond()}
	if p.cond&syntax.EmptyBeginText != 0 {
		p.first, p.hasFirst = firstBytes(prog)
	} else if set, ok := firstBytes(prog); ok && set[2] == 0 && set[3] == 0 {
		// ASCII only, so that a byte in the set is where a rune starts.
		p.starts, p.hasStarts = set, true
	}
	p.maxLen = -1
	if n := len(re.Sub); re.Op == syntax.OpConcat && n >= 2 && re.Sub[0].Op == syntax.OpBeginText && re.Sub[n-1].Op == syntax.OpEndText {
		p.last, p.hasLast = lastBytes(re)
		if m, ok := maxBytes(re); ok {
			p.maxLen = m
		}
		// The literal a match must end with, before the $: compared
		// before the program runs, so that a path crafted to hold many
		// regexes' literals runs only those whose ending it has.
		if s := re.Sub[n-2]; n >= 3 && s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 && !slices.Contains(s.Rune, utf8.RuneError) {
			p.suffix = []byte(string(s.Rune))
		}
	}
	if prefix, _ := prog.Prefix(); prefix != "" {
		p.prefix = []byte(prefix)
	}
	for _, r := range p.required {
		if len(r) > len(p.need) && !strings.HasPrefix(stripped, r) {
			p.need = []byte(r)
		}
	}
	// The short ones too, when a match needs nothing longer: PCRE's
	// "required character" rejected `[a-z]0[0-9]*\.ht` on paths without
	// a 0 while each ran over the path here.
	for _, r := range allRequiredLiterals(re) {
		if len(r) < 3 && !strings.Contains(stripped, r) && len(p.short) < 4 {
			p.short = append(p.short, []byte(r))
		}
	}
	return p, nil
}

// holdsNeeds reports whether input holds the literals every match needs
// beyond its stripped prefix (need and short): most candidates fail
// there, faster than by backtracking.
func (p *program) holdsNeeds(input []byte) bool {
	if len(p.need) > 0 && !bytes.Contains(input, p.need) {
		return false
	}
	for _, s := range p.short {
		if !bytes.Contains(input, s) {
			return false
		}
	}
	return true
}

// maxProgramInsts bounds a regex's compiled size: matching keeps one
// visited bit per instruction and path byte, so a huge program would cost
// megabytes of scratch per event loop.
const maxProgramInsts = 2000

// numSubexp reports the number of capture groups (like
// regexp.Regexp.NumSubexp).
func (p *program) numSubexp() int {
	return p.numCap
}

// backtrackJob is an entry on the backtracker's job stack: resume at
// instruction pc, input offset pos. arg marks a second visit: for InstAlt,
// "now try the other branch"; for InstCapture, "restore register Arg to
// pos", undoing the capture when the branch through it failed.
type backtrackJob struct {
	pc  uint32
	arg bool
	pos int
}

// Scratch is per-caller (per event loop) working memory for regex matching.
// The zero value is ready to use; it grows to the largest need and is then
// reused. Not safe for concurrent use.
type Scratch struct {
	// pcre is package pcre's memory for the PCRE Patterns run on this
	// Scratch; pcreSpent their steps since ResetSteps, against
	// pcreBudget; pcreAbandoned that one was cut short.
	pcre          pcre.Scratch
	pcreSpent     int
	pcreAbandoned bool
	// visited has one bit per (pc, pos) pair, at pc*(end+1)+pos; a set bit
	// means that state was already explored and failed, which bounds a
	// match to len(prog.Inst)*(len(input)+1) steps.
	visited []uint32
	// touched lists the words of visited that are not zero: reset clears
	// those alone, so a candidate that fails at its first byte costs what
	// it did, not a clear of instructions x path length bits (which for
	// a long path and a hundred candidates was most of a miss).
	touched []uint32
	jobs    []backtrackJob
	end     int
	// steps counts the states visited since the caller last cleared it:
	// the work the regex tier's budget bounds.
	steps int
}

// maxVisitedBits bounds the visited bitmap: 2,000 instructions
// (maxProgramInsts) on a path of 8 KiB (the default max_path_bytes) need
// 16 Mi bits, 2 MiB per event loop. A longer path, with a larger
// max_path_bytes, is matched by package regexp instead (see match).
const maxVisitedBits = 1 << 24

// reset readies s for matching prog against an input of length end.
func (s *Scratch) reset(prog *syntax.Prog, end int) {
	s.end = end
	s.jobs = s.jobs[:0]
	for _, w := range s.touched {
		s.visited[w] = 0
	}
	s.touched = s.touched[:0]
	n := (len(prog.Inst)*(end+1) + visitedWordBits - 1) / visitedWordBits
	if cap(s.visited) < n {
		s.visited = make([]uint32, n) // every word of visited is zero but the touched ones
	} else {
		s.visited = s.visited[:n]
	}
}

// shouldVisit reports whether (pc, pos) has not been visited yet, and marks
// it visited.
func (s *Scratch) shouldVisit(pc uint32, pos int) bool {
	n := uint(int(pc)*(s.end+1) + pos)
	w, bit := n/visitedWordBits, uint32(1)<<(n&(visitedWordBits-1))
	v := s.visited[w]
	if v&bit != 0 {
		return false
	}
	s.steps++
	if v == 0 {
		s.touched = append(s.touched, uint32(w))
	}
	s.visited[w] = v | bit
	return true
}

// push queues (pc, pos, arg) unless it is a dead end or, for a first visit,
// already explored. A second visit (arg) continues a state already marked.
func (s *Scratch) push(prog *syntax.Prog, pc uint32, pos int, arg bool) {
	if prog.Inst[pc].Op != syntax.InstFail && (arg || s.shouldVisit(pc, pos)) {
		s.jobs = append(s.jobs, backtrackJob{pc: pc, arg: arg, pos: pos})
	}
}

// decodeStep decodes the rune at pos the way regexp does: invalid UTF-8 is
// utf8.RuneError of width 1, and the end of input is noRune of width 0.
func decodeStep(input []byte, pos int) (rune, int) {
	if pos < len(input) {
		return utf8.DecodeRune(input[pos:])
	}
	return noRune, 0
}

// emptyOpAt reports the empty-width conditions that hold at pos, looking at
// the runes on either side as regexp's inputBytes.context does (the rune
// before is decoded backwards, which for invalid UTF-8 can differ from
// stepping forwards; matching regexp matters more than symmetry).
func emptyOpAt(input []byte, pos int) syntax.EmptyOp {
	r1, r2 := noRune, noRune
	if uint(pos-1) < uint(len(input)) {
		r1, _ = utf8.DecodeLastRune(input[:pos])
	}
	if uint(pos) < uint(len(input)) {
		r2, _ = utf8.DecodeRune(input[pos:])
	}
	return syntax.EmptyOpContext(r1, r2)
}

// match reports whether p matches input (searching like regexp does:
// unanchored unless the pattern is anchored with ^ / \A).
// On a match it fills caps[0:2*(numSubexp+1)] with byte offsets (-1 for
// groups that did not participate) and returns true. caps must have that
// length; the caller owns it. On no match caps holds only -1.
// It allocates only while s grows.
func (p *program) match(input []byte, caps []int, s *Scratch) bool {
	for i := range caps {
		caps[i] = -1
	}
	if p.cond == ^syntax.EmptyOp(0) {
		return false
	}

	s.reset(p.prog, len(input))
	start := uint32(p.prog.Start)

	if p.cond&syntax.EmptyBeginText != 0 {
		caps[0] = 0
		if p.tryBacktrack(input, caps, s, start, 0) {
			return true
		}
		caps[0] = -1
		return false
	}

	// Unanchored: try each start offset, including the empty match at the
	// end (hence pos <= end). Looks quadratic, but visited is not cleared
	// between starts: a (pc, pos) state that failed from one start fails
	// from any later one too, so total work stays linear.
	end := len(input)
	width := -1
	for pos := 0; pos <= end && width != 0; pos += width {
		if len(p.prefix) > 0 {
			advance := bytes.Index(input[pos:], p.prefix)
			if advance < 0 {
				break
			}
			pos += advance
		} else if p.hasStarts {
			for pos < end && !p.starts.has(input[pos]) {
				pos++
			}
			if pos == end {
				break // no match is empty (firstBytes would have said)
			}
		}
		caps[0] = pos
		if p.tryBacktrack(input, caps, s, start, pos) {
			return true
		}
		_, width = decodeStep(input, pos)
	}
	caps[0] = -1
	return false
}

// tooBig reports whether matching an input of n bytes would take a
// visited bitmap of more than maxVisitedBits.
func (p *program) tooBig(n int) bool { return len(p.prog.Inst)*(n+1) > maxVisitedBits }

// matchBig is match of the whole expression (strip included) for an input
// that tooBig reports: package regexp's own matcher, which bounds its
// memory whatever the input, at the cost of allocating.
func (p *program) matchBig(input []byte, caps []int) bool {
	re := p.big.Load()
	if re == nil {
		re = regexp.MustCompile(p.expr) // compileProgram parsed it already
		p.big.Store(re)
	}
	loc := re.FindSubmatchIndex(input)
	if loc == nil {
		return false
	}
	copy(caps, loc)
	return true
}

// tryBacktrack runs a backtracking search of p from instruction pc at pos,
// and on success leaves the match in caps (caps[0] is set by the caller).
// On failure every capture register is back to its value on entry.
//
// It is long because, as in regexp, the goto-based dispatch loop (no
// push/pop for the common single-successor step) is what keeps it fast:
// split into functions, each step would pay a call and spill its state.
func (p *program) tryBacktrack(input []byte, caps []int, s *Scratch, pc uint32, pos int) bool {
	prog := p.prog
	s.push(prog, pc, pos, false)
	for len(s.jobs) > 0 {
		l := len(s.jobs) - 1
		pc := s.jobs[l].pc
		pos := s.jobs[l].pos
		arg := s.jobs[l].arg
		s.jobs = s.jobs[:l]

		// Steps that have exactly one successor update pc and pos and jump
		// to CheckAndLoop instead of pushing and popping; they must still
		// do the shouldVisit check push would have done.
		goto Skip
	CheckAndLoop:
		if !s.shouldVisit(pc, pos) {
			continue
		}
	Skip:
		inst := &prog.Inst[pc]

		switch inst.Op {
		default:
			panic("matcher: bad regexp instruction")
		case syntax.InstFail:
			panic("matcher: unexpected InstFail")
		case syntax.InstAlt:
			// Pushing both branches now would be wrong: if Out's branch
			// reaches Arg's state by another path, it must explore it then
			// (leftmost-first priority). So re-push this Alt with arg set as
			// a reminder to try Arg once Out is exhausted.
			if arg {
				arg = false
				pc = inst.Arg
				goto CheckAndLoop
			}
			s.push(prog, pc, pos, true)
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstAltMatch:
			// One branch consumes runes; the other leads to a match.
			switch prog.Inst[inst.Out].Op {
			case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
				// inst.Arg is the match.
				s.push(prog, inst.Arg, pos, false)
				pc = inst.Arg
				pos = s.end
				goto CheckAndLoop
			}
			// inst.Out is the match: non-greedy.
			s.push(prog, inst.Out, s.end, false)
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstRune:
			r, width := decodeStep(input, pos)
			if !inst.MatchRune(r) {
				continue
			}
			pos += width
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstRune1:
			r, width := decodeStep(input, pos)
			if r != inst.Rune[0] {
				continue
			}
			pos += width
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstRuneAnyNotNL:
			r, width := decodeStep(input, pos)
			if r == '\n' || r == noRune {
				continue
			}
			pos += width
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstRuneAny:
			r, width := decodeStep(input, pos)
			if r == noRune {
				continue
			}
			pos += width
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstCapture:
			if arg {
				// The branch through this capture failed; restore the old
				// value saved in pos.
				caps[inst.Arg] = pos
				continue
			}
			if inst.Arg < uint32(len(caps)) {
				s.push(prog, pc, caps[inst.Arg], true)
				caps[inst.Arg] = pos
			}
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(inst.Arg)&^emptyOpAt(input, pos) != 0 {
				continue
			}
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstNop:
			pc = inst.Out
			goto CheckAndLoop

		case syntax.InstMatch:
			// Leftmost-first: the first match found from this start is the
			// answer; leftover jobs are dropped by the next reset.
			caps[1] = pos
			return true
		}
	}
	return false
}
