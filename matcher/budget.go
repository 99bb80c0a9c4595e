package matcher

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"runtime"
	"runtime/metrics"
	"unsafe"
)

// A rule set's memory is budgeted as it is built (Limits.RuleBytes):
// each rule kept outside a packed table is charged an estimate of what
// it holds once the Set is finished, so that a set past the budget is
// refused at the rule that passes it, before the rest is compiled.
// Packed exact rules are not charged: each costs its From and To bytes
// and a 24-byte entry, about the size of its line in the map file.
//
// The estimates are calibrated by TestRuleBytesEstimate against the heap
// the rules really take. The garbage compiling leaves on the way (syntax
// trees, a program's growing instruction slice) is not charged: each
// regex's is bounded by its size (maxProgramInsts), and collect keeps it
// from piling up.

// Per-rule costs beyond the strings and programs they hold: the rule
// itself and its share of the Set's indexes (file order, the host's
// lists, radix nodes), measured.
const (
	ruleOverhead = int64(unsafe.Sizeof(rule{})) + 160
	litOverhead  = int64(unsafe.Sizeof(litRule{})) + 96
	// progOverhead is a program's fixed cost: its syntax.Prog, the
	// program struct, its names, prefix and literal slices.
	progOverhead = int64(unsafe.Sizeof(program{})+unsafe.Sizeof(syntax.Prog{})) + 960
	instSize     = int64(unsafe.Sizeof(syntax.Inst{}))
)

// ruleCost estimates the bytes r costs kept as a rule (not lowered).
func ruleCost(r *rule) int64 {
	n := ruleOverhead + int64(len(r.From)+len(r.To)+len(r.hdr)+len(r.condKey))
	if r.prog != nil {
		n += progCost(r.prog)
	}
	return n
}

// litCost estimates the bytes r costs kept as a lowered rule (litRule),
// its pattern filed in the literal tables.
func litCost(r *rule) int64 {
	return litOverhead + int64(len(r.From)+len(r.To)+2*len(r.lit.pat)+2*len(r.lit.wild))
}

// progCost estimates the bytes of a compiled program.
func progCost(p *program) int64 {
	n := progOverhead + int64(len(p.expr)+len(p.literal)+len(p.strip)+len(p.need)+len(p.prefix))
	for _, s := range p.required {
		n += int64(len(s)) + 16
	}
	if p.pcre != nil {
		n += int64(p.pcre.Size()) * instSize
	}
	for i := range p.prog.Inst {
		n += instSize + 4*int64(len(p.prog.Inst[i].Rune))
	}
	return n
}

// estimateInsts estimates, from re parsed and not yet simplified, how
// many instructions it compiles to, without building the expanded tree
// that Simplify makes of a counted repetition (`a{1,100}` is a hundred
// copies, nested repetitions multiply): a regex far past maxProgramInsts
// is refused before its tree and program are built. The result is
// capped, so that nesting cannot overflow it.
func estimateInsts(re *syntax.Regexp) int64 {
	const ceiling = 1 << 40
	var n int64
	switch re.Op {
	case syntax.OpLiteral:
		n = int64(len(re.Rune))
	case syntax.OpCapture:
		n = 2 + estimateInsts(re.Sub[0])
	case syntax.OpConcat, syntax.OpAlternate:
		for _, s := range re.Sub {
			n += estimateInsts(s) + 1
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		n = 1 + estimateInsts(re.Sub[0])
	case syntax.OpRepeat:
		k := int64(re.Max)
		if k < 0 {
			k = int64(re.Min) + 1
		}
		n = k * (1 + estimateInsts(re.Sub[0]))
	default:
		n = 1
	}
	return min(n, ceiling)
}

// chargeBytes adds n to the bytes the rule set costs and refuses the rule
// that passes Limits.RuleBytes.
func (b *Builder) chargeBytes(n int64) error {
	b.bytes += n
	l := b.limits.RuleBytes
	if l <= 0 {
		return nil
	}
	if b.bytes > l {
		b.bytes -= n
		return b.bytesError()
	}
	if b.bytes >= b.nextCheck {
		b.nextCheck = b.bytes + checkEvery
		b.collect()
	}
	return nil
}

// checkEvery is how many charged bytes pass between looks at the heap.
const checkEvery = 1 << 20

// collect runs the collector when the heap has grown by more than the
// budget and gcSlack since the Builder was made, and by gcSpacing since
// collect last ran it. Compiling a regex leaves garbage about the size of
// its program (the expanded syntax tree, the instruction slice as it
// grew); the collector's pacing lets garbage grow to the size of the live
// heap, which with a large running Set is far more than the new set
// itself. Collected here, a load costs at most its budget, the slack and
// one check's garbage above what was there before, whatever the running
// set. The second bound keeps a load whose packed rules, not charged,
// grew the heap from collecting at every check. A set well within the
// budget (a real site's 42,000-key map charges 20 MB) seldom comes here.
func (b *Builder) collect() {
	h := int64(heapBytes())
	if h-int64(b.heap) > b.limits.RuleBytes+gcSlack && h-b.lastGC > gcSpacing {
		runtime.GC()
		b.lastGC = int64(heapBytes())
	}
}

// gcSlack is the heap growth past the budget allowed before collect
// collects: the map file's text, the packed rules beside the budgeted
// ones. gcSpacing is the least growth between two collections: with the
// slack, what a refused set may leave as garbage.
const (
	gcSlack   = 2 << 20
	gcSpacing = 6 << 20
)

// heapBytes reads the bytes of heap objects, live or not yet swept, without
// stopping the world (as runtime.ReadMemStats would).
func heapBytes() uint64 {
	s := [1]metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// room is what is left of Limits.RuleBytes (-1: no bound).
func (b *Builder) room() int64 {
	if b.limits.RuleBytes <= 0 {
		return -1
	}
	return b.limits.RuleBytes - b.bytes
}

func (b *Builder) bytesError() error {
	l := b.limits.RuleBytes
	size := fmt.Sprintf("%d bytes", l)
	if l%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", l>>20)
	}
	return &FieldError{Field: "from", err: ErrLimit, Msg: "the rule set's rules compile to more than " + size + " (max_rules_bytes; plain exact rules are not counted): split it over nodes, or write the rules as plain exact ones or simpler regexes"}
}

// budget counts r's regex program, if it has one, against the Limits.
func (b *Builder) budget(r *rule) error {
	if r.prog == nil {
		return nil
	}
	b.progs++
	b.insts += len(r.prog.prog.Inst)
	if r.prog.pcre != nil {
		b.insts += r.prog.pcre.Size()
	}
	l := b.limits
	switch {
	case l.Programs > 0 && b.progs > l.Programs:
		return &FieldError{Field: "from", err: ErrLimit, Msg: fmt.Sprintf("more than %d regexes that compile to programs (not answered as literals) in one rule set: split it over nodes, or write the rules as exact, prefix or anchored literal ones", l.Programs)}
	case l.ProgramInsts > 0 && b.insts > l.ProgramInsts:
		return &FieldError{Field: "from", err: ErrLimit, Msg: fmt.Sprintf("the rule set's regexes compile to more than %d instructions in all: split it over nodes, or simplify the regexes", l.ProgramInsts)}
	}
	return nil
}

// errNoRoom is what compileRuleInto returns for a regex whose estimated
// program does not fit what is left of the budget; Add reports it as
// bytesError.
var errNoRoom = errors.New("no room in the rule set's memory budget")

// cost is what r is charged as it is kept: as a litRule when lowered.
func (b *Builder) cost(r *rule) int64 {
	if r.lit != nil {
		return litCost(r)
	}
	return ruleCost(r)
}

// unlower compiles lowered r to a program, charging the difference.
func (b *Builder) unlower(r *rule) error {
	was := litCost(r)
	if err := r.unlower(); err != nil {
		return err
	}
	return b.chargeBytes(ruleCost(r) - was)
}

// fits reports whether a program estimated at insts instructions fits in
// room bytes (room < 0: no bound).
func fits(insts, room int64) bool {
	return room < 0 || progOverhead+insts*instSize <= room
}
