package matcher

import (
	"errors"
	"regexp/syntax"
	"slices"
	"strings"
	"unsafe"
)

// Builder compiles rules into a Set one at a time, so that a loader can
// hand over a map file's rules as it reads them instead of holding a
// []Rule of a million entries first. Plain exact rules (case-sensitive,
// trailing-slash-strict, without percent escapes in From) go into the
// packed table of their host; every other rule is compiled as Compile
// does. Rules must be added in file order, which decides between regexes
// and which of two duplicates an error calls the first.
type Builder struct {
	s      *Set
	limits Limits
	// The host of the last packed rule and its rules: a map file's rules
	// share one host, so most adds skip the host lookup.
	lastHost string
	lastH    *hostRules
	// errs are the duplicates found when packed tables are indexed.
	errs []error
	// seq numbers the rules not in packed tables, in file order.
	seq int32
	// spare is a zero rule to compile the next one into.
	spare *rule
	// hdrs interns the rules' header blocks (headers.go).
	hdrs map[string]string
	// progs and insts count the regex programs compiled so far and their
	// instructions, against limits.Programs and ProgramInsts.
	progs, insts int
	// bytes is the estimated memory of the rules kept outside packed
	// tables, against limits.RuleBytes; heap is what the heap held when
	// the Builder was made, lastGC after collect last collected
	// (budget.go).
	bytes, nextCheck, lastGC int64
	heap                     uint64
	// keep: From and To are kept as given (KeepStrings).
	keep bool
	// nginx: regexes are read as nginx's PCRE reads them (NginxRegexes).
	nginx bool
	// ruleSlab and instSlab are the slabs of the rules kept as real regexes
	// and of their programs' instructions (newRule, keepInsts).
	ruleSlab []rule
	instSlab []syntax.Inst
	// runeSlab and byteSlab hold the programs' rune classes and literals
	// (keepProgram).
	runeSlab []rune
	byteSlab []byte
}

// NewBuilder returns a Builder of an empty Set whose packed tables are
// bounded by l (DefaultLimits unless a test wants small ones).
func NewBuilder(l Limits) *Builder {
	h := heapBytes()
	return &Builder{limits: l, s: &Set{any: newHostRules()}, heap: h, lastGC: int64(h)}
}

// FileOrder makes the Set answer each request with the first matching
// rule in file order, whatever its kind (exact, prefix, regex) and host
// (the request's, a wildcard, none), as Netlify and Vercel do, instead of
// an exact path, then the longest prefix, then the first regex, the
// request's host before wildcards before host-less rules. Call it before
// the first Add. Such a Set packs no exact rules (a packed entry has no
// place in file order): each costs what a rule with conditions does.
func (b *Builder) FileOrder() { b.s.fileOrder = true }

// KeepStrings makes the Set keep the From and To strings of the rules
// added as they are given, not copies, for a caller whose strings live
// as long as the Set anyway: a map's index of its regex keys held each
// key twice (1.9 MiB of gwern.net's 42,209). Call it before the first
// Add; Add then keeps references to in's strings.
func (b *Builder) KeepStrings() { b.keep = true }

// NginxRegexes makes the Set read a regex that RE2 reads otherwise than
// nginx's PCRE whatever the path (an unbounded loop that can match
// empty: regex_nginx.go) as PCRE does, on package pcre, for the nginx
// model's regexes (a map's keys). Call it before the first Add.
func (b *Builder) NginxRegexes() { b.nginx = true }

// Add checks one rule and adds it. A bad rule or a rule past the Limits is
// reported as a *RuleError and leaves the Set as it was; so is a
// duplicate, except that one between two packed rules is found only when
// the table is indexed, and reported by Set. Add keeps no reference to
// in or its strings, unless KeepStrings was called.
func (b *Builder) Add(in *Rule) error {
	if err := checkNginxFrom(in, b.s.uriMode); err != nil {
		return ruleError(in, err)
	}
	if f, ok := packableForm(in); ok && len(in.Headers) == 0 && !b.s.fileOrder && (f != 0 || nginxPlain(in.From, b.s.uriMode)) {
		ok, err := b.addPacked(in, f)
		if err != nil {
			return ruleError(in, err)
		}
		if ok {
			return nil
		}
	}
	// A lowered regex is kept as a litRule, not as its rule: the rule
	// is then reused for the next one.
	r := b.spare
	if r == nil {
		r = b.newRule()
	}
	b.spare = nil
	err := compileRuleInto(r, in, b.room(), b.keep, b.nginx)
	if err == errNoRoom {
		err = b.bytesError()
	}
	if err == nil {
		err = b.budget(r)
	}
	if err == nil {
		err = b.chargeBytes(b.cost(r))
	}
	if err != nil {
		*r = rule{}
		b.spare = r
		return ruleError(in, err)
	}
	h := b.s.hostRules(r.Host)
	if h.packed != nil {
		// hostRules.add looks for duplicates in the packed table.
		b.errs = append(b.errs, h.packed.index()...)
	}
	if h.formN > 0 {
		if t := h.formPacked[ruleForm(&r.Rule)]; t != nil {
			b.errs = append(b.errs, t.index()...)
		}
	}
	if r.hdr != "" {
		r.hdr = b.intern(r.hdr)
	}
	r.seq = b.seq
	b.seq++
	b.s.uri = b.s.uri || r.RequestURI
	if r.lit != nil && (r.hdr != "" || r.fb != nil) { // a lowered regex has no room for headers or a fallback
		if err := b.unlower(r); err != nil {
			return ruleError(in, err)
		}
	}
	if r.lit != nil {
		x := &h.regex
		if r.RequestURI {
			x = &h.uriRegex
		}
		if i, ok := x.addLit(r); ok {
			b.s.litN++
			b.extendSpan(span{x: x, lo: int(i), hi: int(i) + 1})
			*r = rule{}
			b.spare = r
			return nil
		}
		if err := b.unlower(r); err != nil {
			return ruleError(in, err)
		}
	}
	if r.prog != nil {
		b.keepProgram(r.prog)
	}
	if err := h.add(r); err != nil {
		return ruleError(in, err)
	}
	b.s.rules = append(b.s.rules, r)
	b.extend(nil, len(b.s.rules)-1)
	return nil
}

// A map of 42,209 regex keys keeps 1,700 of them as real regexes, each
// a rule of 456 bytes and an instruction slice of 500 to 1,800, among
// the load's garbage of the same sizes (parse trees, instruction slices
// grown by appending, the rules lowered and reused). Once that garbage
// was collected, spans holding one or two of them each stayed, 9.6 MB of
// free room held. So both come from slabs of the Builder, in chunks
// just under 32 KiB (the largest size class), from a few for a small
// Set.
const (
	ruleChunk = (32 << 10) / int(unsafe.Sizeof(rule{}))
	instChunk = (32 << 10) / int(unsafe.Sizeof(syntax.Inst{}))
)

// newRule returns a zero rule from the Builder's slab.
func (b *Builder) newRule() *rule {
	if len(b.ruleSlab) == cap(b.ruleSlab) {
		b.ruleSlab = make([]rule, 0, min(ruleChunk, max(4, 2*cap(b.ruleSlab))))
	}
	b.ruleSlab = b.ruleSlab[:len(b.ruleSlab)+1]
	return &b.ruleSlab[len(b.ruleSlab)-1]
}

// keepProgram moves p's instructions, their runes and its literals into
// the Builder's slabs: small objects of their own, each of them (the
// literals' strings, the runes taken from the parse tree) held a span
// of the load's garbage in use too.
func (b *Builder) keepProgram(p *program) {
	b.keepInsts(p.prog)
	if p.prog != nil {
		for i := range p.prog.Inst {
			in := &p.prog.Inst[i]
			in.Rune = keepIn(&b.runeSlab, in.Rune, 256, 4<<10)
		}
	}
	if len(p.names) <= len(unnamed) && !slices.ContainsFunc(p.names, func(n string) bool { return n != "" }) {
		p.names = unnamed[:len(p.names)]
	}
	for i, r := range p.required {
		p.required[i] = b.keepString(r)
	}
	p.literal, p.strip = b.keepString(p.literal), b.keepString(p.strip)
	p.need = keepIn(&b.byteSlab, p.need, 512, 16<<10)
	p.prefix = keepIn(&b.byteSlab, p.prefix, 512, 16<<10)
	p.suffix = keepIn(&b.byteSlab, p.suffix, 512, 16<<10)
}

// keepString is s copied into the Builder's byte slab.
func (b *Builder) keepString(s string) string {
	if s == "" {
		return s
	}
	k := keepIn(&b.byteSlab, []byte(s), 512, 16<<10)
	// The slab's bytes are never written again: append writes past them.
	return unsafe.String(&k[0], len(k))
}

// keepIn returns v copied into the slab, whose chunks grow from least
// to most elements; v itself when empty or over a quarter of a chunk.
func keepIn[T any](slab *[]T, v []T, least, most int) []T {
	if len(v) == 0 || len(v) > most/4 {
		return v
	}
	if cap(*slab)-len(*slab) < len(v) {
		*slab = make([]T, 0, min(most, max(least, 2*cap(*slab))))
	}
	n := len(*slab)
	*slab = append(*slab, v...)
	return (*slab)[n:len(*slab):len(*slab)]
}

// keepInsts moves p's instructions into the Builder's slab; a program
// of more than a quarter of a chunk keeps its own.
func (b *Builder) keepInsts(p *syntax.Prog) {
	if p == nil || len(p.Inst) == 0 || len(p.Inst) > instChunk/4 {
		return
	}
	if cap(b.instSlab)-len(b.instSlab) < len(p.Inst) {
		b.instSlab = make([]syntax.Inst, 0, min(instChunk, max(64, 2*cap(b.instSlab))))
	}
	n := len(b.instSlab)
	b.instSlab = append(b.instSlab, p.Inst...)
	p.Inst = b.instSlab[n:len(b.instSlab):len(b.instSlab)]
}

// addPacked adds in to its host's packed table; false without an error
// means the table cannot hold it and the ordinary path should.
func (b *Builder) addPacked(in *Rule, form uint8) (bool, error) {
	host := strings.ToLower(in.Host) // no copy when already lower case
	if b.lastH == nil || host != b.lastHost {
		b.lastHost, b.lastH = host, b.s.hostRules(host)
	}
	h := b.lastH
	if form != 0 {
		return b.addPackedForm(in, form, h, host)
	}
	if r := unconditioned(&h.exact, in.From); r != nil {
		return false, fieldErr("from", "duplicate exact rule for %q (first defined at %s)", in.From, r.Source())
	}
	t := h.packed
	if t == nil {
		t = newPackedTable(host)
		h.packed = t
		b.s.packed = append(b.s.packed, t)
	}
	ok, err := t.add(in, b.limits)
	if err != nil || !ok {
		return false, err
	}
	b.s.packedN++
	b.extend(t, len(t.ents)-1)
	return true, nil
}

// Grow makes room in host's packed table for about rules more rules of
// bytes more From and To bytes, such as a map file's size: appending a
// million rules one by one would copy the arena a dozen times over.
// Room left unused is given back when the Set is finished.
func (b *Builder) Grow(host string, rules, bytes int) {
	if b.s.fileOrder {
		return // nothing is packed
	}
	host = strings.ToLower(host)
	h := b.s.hostRules(host)
	if h.packed == nil {
		h.packed = newPackedTable(host)
		b.s.packed = append(b.s.packed, h.packed)
	}
	h.packed.grow(rules, bytes)
}

// extend records the rule just added (index i of t, or of s.rules when t
// is nil) in the Set's file order.
func (b *Builder) extend(t *packedTable, i int) {
	b.extendSpan(span{t: t, lo: i, hi: i + 1})
}

// extendSpan records sp, one rule, in the Set's file order.
func (b *Builder) extendSpan(sp span) {
	o := b.s.order
	if n := len(o); n > 0 && o[n-1].t == sp.t && o[n-1].x == sp.x && o[n-1].hi == sp.lo {
		o[n-1].hi++
		return
	}
	b.s.order = append(o, sp)
}

// Set finishes the build and returns the Set, or the duplicates found
// among packed rules (up to 20, as *RuleErrors joined with errors.Join).
// The Builder must not be used after.
func (b *Builder) Set() (*Set, error) {
	b.s.eachHost(func(h *hostRules) {
		h.regex.finish()
		h.uriRegex.finish()
		h.finishAlts(b.s.fileOrder)
	})
	for _, t := range b.s.packed {
		b.errs = append(b.errs, t.index()...)
		t.finish()
	}
	s, errs := b.s, b.errs
	b.s, b.lastH, b.errs = nil, nil, nil
	if len(errs) > 0 {
		return nil, errors.Join(errs[:min(len(errs), maxErrors)]...)
	}
	return s, nil
}

func ruleError(in *Rule, err error) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		fe = &FieldError{Field: "from", Msg: err.Error()}
	}
	return &RuleError{Rule: *in, FieldError: *fe}
}

// unconditioned returns the rule without query conditions filed under key
// in t, or nil: the one a packed rule of the same key would duplicate.
// (Rules with conditions stay in t and are tried before the packed rule.)
func unconditioned(t *exactTable, key string) *rule {
	e := t.m[key]
	r := e.r
	if r == nil {
		return nil
	}
	if alts := e.alts; alts != nil {
		for _, a := range alts.rules {
			if !a.conditional() {
				return a
			}
		}
		return nil
	}
	if !r.conditional() {
		return r
	}
	return nil
}
