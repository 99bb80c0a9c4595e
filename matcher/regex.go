package matcher

import (
	"math"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// regexIndex is the regex tier of one host: the lowered regexes in
// literal tables (regex_lit.go), the others behind a prefilter. A lookup
// answers the matching rule added first (file order), and runs the
// backtracker only on real regexes that come before the best lowered
// match and whose required literals the input holds.
type regexIndex struct {
	plain, fold litTables
	real        realIndex
	// lits are the lowered rules in file order, in chunks of litChunk so
	// that a big map grows without copying (see lit); nlits counts them.
	// tmpls are the templates of those whose To refers to a group or
	// variable; files their files.
	lits  [][]litRule
	nlits int32
	tmpls []template
	files []string
	// wilds holds the lowered rules' wildcard offsets (keepWild), strs
	// their patterns that are not part of From (keepPat).
	wilds []uint16
	strs  []byte
	host  string // the rules' Host, as configured
}

// add files r, a rule whose regex is not lowered.
func (x *regexIndex) add(r *rule) { x.real.add(r) }

// addLit files r, a rule with lit and no query conditions, as a litRule,
// and returns its index; false when the index can hold no more files.
func (x *regexIndex) addLit(r *rule) (int32, bool) {
	if len(x.files) == math.MaxUint16 && x.files[len(x.files)-1] != r.File {
		return 0, false
	}
	i := x.nlits
	if i%litChunk == 0 {
		x.lits = append(x.lits, make([]litRule, 0, litChunk))
	}
	c := &x.lits[len(x.lits)-1]
	*c = append(*c, litRule{})
	x.nlits++
	x.setLitRule(x.lit(i), r)
	// The tables take the litRule's pattern (its strings kept below),
	// not the rule's, which is reused.
	if l := &x.lit(i).litPattern; l.fold {
		x.fold.add(x, l, i)
	} else {
		x.plain.add(x, l, i)
	}
	return i, true
}

// litChunk is the number of lowered rules in one chunk of regexIndex.lits.
const litChunk = 512

// lit returns lowered rule i.
func (x *regexIndex) lit(i int32) *litRule { return &x.lits[i/litChunk][i%litChunk] }

func (x *regexIndex) empty() bool { return x.nlits == 0 && x.real.n == 0 }

// finish readies the index for lookups once every rule is added.
func (x *regexIndex) finish() {
	x.real.finish()
	x.plain.finish(x)
	x.fold.finish(x)
	if n := len(x.lits); n > 0 && cap(x.lits[n-1]) > len(x.lits[n-1]) {
		x.lits[n-1] = append([]litRule(nil), x.lits[n-1]...)
	}
}

// lookup returns the earliest rule (by seq) before limit whose regex
// matches in, with query for the rules' query conditions; fold is scratch
// for in folded. A lowered rule is reported in hit (hit.i >= 0, and nil
// returned); a real regex is returned, with m's captures filled.
func (x *regexIndex) lookup(in, query []byte, limit int32, fold *[]byte, hit *litHit, m *Match) *rule {
	*hit = litHit{i: -1}
	if x.nlits > 0 {
		x.plain.lookup(x, in, hit)
		if x.fold.exact != nil || x.fold.tree != nil {
			*fold = appendFold((*fold)[:0], in)
			x.fold.lookup(x, *fold, hit)
		}
		if hit.i >= 0 && x.lit(hit.i).seq < limit {
			limit = x.lit(hit.i).seq
		} else {
			*hit = litHit{i: -1}
		}
	}
	if r := x.real.lookup(in, query, limit, m); r != nil {
		*hit = litHit{i: -1}
		return r
	}
	return nil
}

// seqOf returns the seq of the lookup's answer: r's, or hit's.
func (x *regexIndex) seqOf(r *rule, hit *litHit) int32 {
	if r != nil {
		return r.seq
	}
	if hit.i >= 0 {
		return x.lit(hit.i).seq
	}
	return math.MaxInt32
}

// realIndex finds the real regexes (those lower refuses) that can match
// an input without running the others. Each is filed one way:
//   - under its literal prefix in a radix tree, when that prefix is at
//     least minFilter bytes: a candidate only for inputs starting with it;
//   - else under one 3-byte piece (a gram) of a literal every match holds
//     (gramIndex): a candidate only for inputs containing the gram;
//   - else under a shorter literal prefix, or in always when it has none.
type realIndex struct {
	tree  *radix
	lists [][]*rule // by radix value, in file order
	grams *gramIndex
	// always holds the regexes with no literal to file them under.
	always []*rule
	// pending holds the regexes to file under a gram once all are known.
	pending []*rule
	// n counts the regexes, minSeq is the first one's seq: a lookup whose
	// limit is not above it has nothing to try.
	n      int
	minSeq int32
	// cls are the rune classes of all the programs, for the one-pass
	// matcher that takes over past the work budget (regex_dfa.go).
	cls *runeClasses
}

// minFilter is the shortest literal prefix filed in the radix tree when
// a gram is available: "/" or "/a" would make the regex a candidate for
// most requests.
const minFilter = 3

func (x *realIndex) add(r *rule) {
	if x.n == 0 || r.seq < x.minSeq {
		x.minSeq = r.seq
	}
	x.n++
	lit := r.prog.literal
	if len(lit) < minFilter && len(r.prog.required) > 0 {
		x.pending = append(x.pending, r) // filed by finish, under its rarest gram
		return
	}
	x.file(r, lit)
}

// file puts r under lit in the radix tree, or in always when lit is "".
func (x *realIndex) file(r *rule, lit string) {
	if lit == "" {
		x.always = append(x.always, r)
		return
	}
	if x.tree == nil {
		x.tree = newRadix()
	}
	if v, n, ok := x.tree.longest([]byte(lit)); ok && n == len(lit) {
		x.lists[v] = append(x.lists[v], r)
		return
	}
	x.tree.insert(lit, int32(len(x.lists)))
	x.lists = append(x.lists, []*rule{r})
}

// finish files the regexes that wait for a gram (gramIndex).
func (x *realIndex) finish() {
	x.uncrowd()
	if x.n > 0 {
		var progs []*syntax.Prog
		for _, rs := range append([][]*rule{x.always, x.pending}, x.lists...) {
			for _, r := range rs {
				progs = append(progs, r.prog.prog)
			}
		}
		x.cls = newRuneClasses(progs)
	}
	if len(x.pending) == 0 {
		return
	}
	x.grams = newGramIndex(x.pending)
	x.pending = nil
}

// crowded is the most regexes one literal prefix keeps when others filed
// under it hold a literal elsewhere: a real site's map filed 218 regexes
// under "/doc/" (`^/doc/.+/GPT-2$`), which most of its paths start with,
// so that a miss checked all 218 for their literal.
const crowded = 8

// uncrowd moves the regexes of crowded prefixes that hold a literal
// beyond their prefix to pending, to be filed under a gram of it.
func (x *realIndex) uncrowd() {
	for v, rs := range x.lists {
		if len(rs) <= crowded {
			continue
		}
		x.lists[v] = slices.DeleteFunc(rs, func(r *rule) bool {
			for _, s := range r.prog.required {
				if !strings.Contains(r.prog.literal, s) {
					x.pending = append(x.pending, r)
					return true
				}
			}
			return false
		})
	}
}

// lookup returns the earliest real regex before limit that matches in.
func (x *realIndex) lookup(in, query []byte, limit int32, m *Match) *rule {
	if x.n == 0 || limit <= x.minSeq {
		return nil
	}
	c := m.cands[:0]
	// Candidates that their first or last byte or their length rules
	// out are left out before the sort.
	take := func(rs []*rule) {
		for _, r := range rs {
			if r.seq >= limit {
				break
			}
			if !r.prog.rejects(in) {
				c = append(c, r)
			}
		}
	}
	take(x.always)
	if x.tree != nil {
		for n, pos := &x.tree.root, 0; n != nil; n, pos = n.step(in, pos) {
			if n.val >= 0 {
				take(x.lists[n.val])
			}
		}
	}
	if x.grams != nil {
		m.grams, m.gramsTmp = x.grams.grams(in, m.grams, m.gramsTmp)
		for _, g := range m.grams {
			take(x.grams.items(g))
		}
	}
	m.cands = c
	if len(c) == 0 {
		return nil
	}
	slices.SortFunc(c, func(a, b *rule) int { return int(a.seq - b.seq) })
	// Each regex is a candidate once (it is filed once), so each runs at
	// most once: on the backtracker while the work spent stays under the
	// budget (for the whole request: Set.lookup clears the count), else in
	// the one pass that answers the rest (regex_dfa.go).
	budget := workBudget
	if m.budget != 0 {
		budget = m.budget
	}
	for i, r := range c {
		if m.scratch.steps > budget {
			return x.lookupRest(c[i:], in, m)
		}
		// Candidates came by one gram or their prefix; most fail on the
		// longest literal they need, found faster than by backtracking.
		if !r.prog.holdsNeeds(in) {
			m.scratch.steps += len(in) / 16 // the scans, at SIMD speed
			continue
		}
		if r.condsHold(m) && m.matchRegex(r, in) && (r.gate == nil || m.open(r)) {
			return r
		}
	}
	return nil
}

// lookupRest is lookup's loop for the candidates c left past the work
// budget: one pass over in tells which of them match, and only the first
// of those whose conditions hold runs on the backtracker, for its
// captures. It answers as the loop would have.
func (x *realIndex) lookupRest(c []*rule, in []byte, m *Match) *rule {
	// Anchored ones lacking a literal they need are left out first, a
	// scan each: in the pass, their `.*` would stay live to the end, a
	// step per character. An unanchored one costs less in the pass,
	// whose states repeat as the path does, than scanned for.
	left := m.left[:0]
	for _, r := range c {
		if r.prog.cond&syntax.EmptyBeginText == 0 || r.prog.holdsNeeds(in) {
			left = append(left, r)
		}
	}
	m.left, c = left, left
	if len(c) == 0 {
		return nil
	}
	d := &m.dfa
	d.load(c, in, x.cls)
	d.run(in)
	m.passes++
	for k, r := range c {
		if r.condsHold(m) && d.matches(k) && m.matchRegex(r, in) && (r.gate == nil || m.open(r)) {
			return r
		}
	}
	return nil
}

// literalPrefix returns the literal text every match of an anchored,
// simplified expression starts with, or "" when the expression is
// unanchored or starts with something other than plain literals. It reads
// the syntax tree rather than regexp.LiteralPrefix, which returns "" for
// many anchored patterns that are not one-pass.
func literalPrefix(re *syntax.Regexp) string {
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return ""
	}
	var b strings.Builder
	for _, s := range re.Sub[1:] {
		// U+FFFD also matches an invalid byte, which a byte comparison of
		// the prefix would not.
		if s.Op != syntax.OpLiteral || s.Flags&syntax.FoldCase != 0 || slices.Contains(s.Rune, utf8.RuneError) {
			break
		}
		b.WriteString(string(s.Rune))
	}
	return b.String()
}

// stripPrefix returns re (simplified, with literal prefix lit) without
// that prefix, still anchored: matching it on the input after lit is
// matching re on the whole input, captures shifted by len(lit). A long
// prefix is most of a hand-written regex's program (one instruction of 40
// bytes per character), and comparing it with bytes.HasPrefix is faster
// too. It returns re and "" when the rest could tell the difference: an
// assertion about what precedes a position (\b, \B, ^ in any mode).
func stripPrefix(re *syntax.Regexp, lit string) (*syntax.Regexp, string) {
	if lit == "" {
		return re, ""
	}
	n, i := 0, 1 // re.Sub[0] is OpBeginText
	for ; i < len(re.Sub) && n < len(lit); i++ {
		n += len(string(re.Sub[i].Rune))
	}
	if n != len(lit) {
		return re, ""
	}
	rest := re.Sub[i:]
	for _, s := range rest {
		if looksBack(s) {
			return re, ""
		}
	}
	out := *re
	out.Sub = append([]*syntax.Regexp{re.Sub[0]}, rest...)
	if len(out.Sub) == 1 {
		return &syntax.Regexp{Op: syntax.OpBeginText, Flags: re.Sub[0].Flags}, lit
	}
	return &out, lit
}

// looksBack reports whether re holds an assertion about the text before a
// position.
func looksBack(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText, syntax.OpBeginLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range re.Sub {
		if looksBack(s) {
			return true
		}
	}
	return false
}

// requiredLiterals returns case-sensitive literals that every match of re
// contains (each at least 3 bytes), for the gram filter. It may return
// fewer than there are, never one a match can lack.
func requiredLiterals(re *syntax.Regexp) []string {
	return slices.DeleteFunc(allRequiredLiterals(re), func(s string) bool { return len(s) < 3 })
}

// allRequiredLiterals is requiredLiterals with the short ones too.
func allRequiredLiterals(re *syntax.Regexp) []string {
	var out []string
	var walk func(re *syntax.Regexp)
	// U+FFFD also matches an invalid byte, which a byte search for its
	// encoding would not find: a literal is cut there.
	lits := func(rs []rune) {
		out = append(out, strings.Split(string(rs), string(utf8.RuneError))...)
	}
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase == 0 {
				lits(re.Rune)
			}
		case syntax.OpCapture, syntax.OpPlus:
			walk(re.Sub[0])
		case syntax.OpRepeat:
			if re.Min >= 1 {
				walk(re.Sub[0])
			}
		case syntax.OpConcat:
			var run []rune
			for _, s := range re.Sub {
				if s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 {
					run = append(run, s.Rune...)
					continue
				}
				if len(run) > 0 {
					lits(run)
					run = nil
				}
				walk(s)
			}
			if len(run) > 0 {
				lits(run)
			}
		}
	}
	walk(re)
	return slices.DeleteFunc(out, func(s string) bool { return s == "" })
}
