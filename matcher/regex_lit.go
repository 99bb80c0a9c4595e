package matcher

import (
	"bytes"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/redirectd/redirectd/internal/ascii"
)

// litRule is a lowered regex rule, kept in a value slice of its
// regexIndex rather than as a *rule: about 110 bytes beyond its strings,
// where a rule with a compiled program costs a few kilobytes. Regexes with
// query conditions are not lowered, so a litRule has none.
type litRule struct {
	from, to string // as compiled: From with (?i) for case-insensitive rules
	litPattern
	hits   atomic.Uint64
	last   atomic.Uint32 // lastanswered.go
	line   uint32
	seq    int32
	tmpl   int32 // index into regexIndex.tmpls, -1 when To is answered as written
	next   int32 // the next rule of the same key in litTables' tree, or -1
	status uint16
	file   uint16 // index into regexIndex.files
	flags  litFlags
}

type litFlags uint8

const (
	litCaseInsensitive litFlags = 1 << iota
	litPass
	litRequestURI
	litHasQuery // To holds '?'
	// The QueryMode: keep (neither bit), drop or replace.
	litQueryDrop
	litQueryReplace
)

// setLitRule makes l the litRule of r, a compiled rule with lit and no
// query conditions; x keeps its file name and, when To refers to
// anything, its template.
func (x *regexIndex) setLitRule(l *litRule, r *rule) {
	l.from, l.to, l.litPattern, l.line, l.seq, l.tmpl, l.next = r.From, r.To, *r.lit, uint32(r.Line), r.seq, -1, -1
	l.wild, l.pat = x.keepWild(l.wild), x.keepPat(l.pat, l.from)
	l.status, l.file = uint16(r.Status), x.fileIndex(r.File)
	set := func(f litFlags, on bool) {
		if on {
			l.flags |= f
		}
	}
	set(litCaseInsensitive, r.CaseInsensitive)
	set(litPass, r.Pass)
	set(litRequestURI, r.RequestURI)
	set(litHasQuery, r.to.hasQuery)
	set(litQueryDrop, r.QueryString == QueryDrop)
	set(litQueryReplace, r.QueryString == QueryReplace)
	if p := r.to.parts; !r.Pass && (len(p) != 1 || p[0].group != partLiteral || p[0].lit != r.To) {
		l.tmpl = int32(len(x.tmpls))
		x.tmpls = append(x.tmpls, r.to)
	}
}

// keepWild returns w copied into x's arena of wildcard offsets: one
// small slice a pattern, kept among the load's garbage, held spans of
// the heap that would otherwise have been freed.
func (x *regexIndex) keepWild(w []uint16) []uint16 {
	if len(w) == 0 {
		return nil
	}
	if cap(x.wilds)-len(x.wilds) < len(w) {
		x.wilds = make([]uint16, 0, max(wildChunk, len(w)))
	}
	n := len(x.wilds)
	x.wilds = append(x.wilds, w...)
	return x.wilds[n:len(x.wilds):len(x.wilds)]
}

// wildChunk is the size of one chunk of regexIndex.wilds.
const wildChunk = 2048

// keepPat returns pat, a lowered rule's pattern, copied into x's arena
// unless it is part of from (lowerFastInto takes it from there when it
// can), for the reason of keepWild.
func (x *regexIndex) keepPat(pat, from string) string {
	if pat == "" || within(pat, from) {
		return pat
	}
	if cap(x.strs)-len(x.strs) < len(pat) {
		x.strs = make([]byte, 0, max(strChunk, len(pat)))
	}
	n := len(x.strs)
	x.strs = append(x.strs, pat...)
	// The arena's bytes are never written again: append writes past them.
	return unsafe.String(&x.strs[n], len(pat))
}

// strChunk is the size of one chunk of regexIndex.strs.
const strChunk = 16 << 10

// within reports whether s lies in the memory of in.
func within(s, in string) bool {
	if len(in) == 0 {
		return false
	}
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(in)))
	return p >= b && p+uintptr(len(s)) <= b+uintptr(len(in))
}

// fileIndex returns the index of name in x.files, adding it when it is
// not the last one (rules come file by file).
func (x *regexIndex) fileIndex(name string) uint16 {
	if n := len(x.files); n > 0 && x.files[n-1] == name {
		return uint16(n - 1)
	}
	for i, f := range x.files {
		if f == name {
			return uint16(i)
		}
	}
	x.files = append(x.files, name)
	return uint16(len(x.files) - 1)
}

// rule returns entry i as a Rule; it allocates, for tools.
func (x *regexIndex) rule(i int32) Rule {
	l := x.lit(i)
	mode := QueryKeep
	switch {
	case l.flags&litQueryDrop != 0:
		mode = QueryDrop
	case l.flags&litQueryReplace != 0:
		mode = QueryReplace
	}
	return Rule{Kind: Regex, Host: x.host, From: l.from, To: l.to, Status: int(l.status), QueryString: mode,
		CaseInsensitive: l.flags&litCaseInsensitive != 0, RequestURI: l.flags&litRequestURI != 0,
		Pass: l.flags&litPass != 0, File: x.files[l.file], Line: int(l.line)}
}

// appendSource appends entry i's "file:line".
func (x *regexIndex) appendSource(dst []byte, i int32) []byte {
	l := x.lit(i)
	dst = append(dst, x.files[l.file]...)
	dst = append(dst, ':')
	return strconv.AppendUint(dst, uint64(l.line), 10)
}

// appendLocation appends entry i's Location for a match over in.
func (x *regexIndex) appendLocation(dst []byte, i int32, in []byte, caps []int, m *Match, query []byte) []byte {
	l := x.lit(i)
	if l.tmpl >= 0 {
		return x.tmpls[l.tmpl].appendLocation(dst, in, caps, nil, m, query)
	}
	mark := len(dst)
	dst = append(dst, l.to...)
	if l.flags&(litQueryDrop|litQueryReplace) != 0 || len(query) == 0 {
		return dst
	}
	return appendQuery(dst, mark, query, l.flags&litHasQuery != 0)
}

// litTables answer the lowered regexes of one case mode: exact patterns
// by a hash lookup of the whole input, every other pattern through a radix
// tree keyed by its literal up to the first wildcard. A lookup costs one
// hash lookup and one walk along the input, whatever the number of
// patterns. Values are indexes into regexIndex.lits; the tree holds the
// first rule of each key, whose litRule.next chain holds the others in
// file order (no slice per key: most keys have one rule).
type litTables struct {
	exact map[string]int32 // the earliest rule for each key
	tree  *radix
	// last finds a key's last rule while building, without walking the
	// tree.
	last map[string]int32
	// crowds split the chains longer than litCrowded, by their head.
	crowds map[int32]*litCrowd
}

// finish drops what only building needs.
func (t *litTables) finish(x *regexIndex) {
	t.last = nil
	t.crowd(x)
	if t.tree != nil {
		t.tree.compact()
	}
}

// add files entry i of x, whose pattern is p.
func (t *litTables) add(x *regexIndex, p *litPattern, i int32) {
	if p.exact() {
		if t.exact == nil {
			t.exact = make(map[string]int32)
		}
		keys := [2]string{p.pat, p.pat + "/"}
		n := 1
		if p.tail == tailSlashEnd {
			n = 2
		}
		for _, k := range keys[:n] {
			if _, dup := t.exact[k]; !dup {
				t.exact[k] = i // an earlier rule of the same key always wins
			}
		}
		return
	}
	if t.tree == nil {
		t.tree, t.last = newRadix(), make(map[string]int32)
	}
	key := p.key()
	if last, ok := t.last[key]; ok {
		x.lit(last).next = i
	} else {
		t.tree.insert(key, i)
	}
	t.last[key] = i
}

// litHit is the earliest lowered rule that matched (i, -1 for none), with
// where its literal and its match end.
type litHit struct {
	i           int32
	litEnd, end int
}

// lookup sets hit to the earliest entry of lits matching in if it comes
// before hit's. Entries are in file order, so a smaller index is earlier.
func (t *litTables) lookup(x *regexIndex, in []byte, hit *litHit) {
	if i, ok := t.exact[string(in)]; ok && (hit.i < 0 || i < hit.i) {
		*hit = litHit{i: i, litEnd: len(x.lit(i).pat), end: len(in)}
	}
	if t.tree == nil {
		return
	}
	// The keys along the input are tried longest first: a longer key is
	// rarer and more likely to match, and a match bounds the chains of the
	// shorter keys, which are in file order. Tried shortest first, a hit
	// on a site's first key (`^/Definition.hs$`, keyed "/Definition")
	// first ran the 165 patterns keyed "/" (`^/.rss$`) to their end. Any
	// order gives the same answer, so keys past the stack's room are tried
	// as they come.
	var stack [32]int32
	vals := stack[:0]
	for n, pos := &t.tree.root, 0; n != nil; n, pos = n.step(in, pos) {
		if n.val < 0 {
			continue
		}
		if len(vals) == len(stack) {
			t.tryChain(x, in, vals[0], hit)
			copy(vals, vals[1:])
			vals = vals[:len(vals)-1]
		}
		vals = append(vals, n.val)
	}
	for k := len(vals) - 1; k >= 0; k-- {
		t.tryChain(x, in, vals[k], hit)
	}
}

// tryChain sets hit to the first entry of the chain from i that matches
// in, if it comes before hit's.
func (t *litTables) tryChain(x *regexIndex, in []byte, i int32, hit *litHit) {
	if t.crowds != nil {
		if c := t.crowds[i]; c != nil {
			c.lookup(x, in, hit)
			return
		}
	}
	for ; i >= 0 && (hit.i < 0 || i < hit.i); i = x.lit(i).next {
		if litEnd, end, ok := x.lit(i).match(in); ok {
			*hit = litHit{i: i, litEnd: litEnd, end: end}
			return
		}
	}
}

// fillCaps writes the hit's captures over in (the unfolded input) to
// caps, mapping offsets in the folded input back when folding changed
// lengths.
func (hit *litHit) fillCaps(caps []int, p *litPattern, in, folded []byte) {
	litEnd, end := hit.litEnd, hit.end
	if len(folded) != len(in) {
		litEnd, end = unfoldOffset(in, litEnd), unfoldOffset(in, end)
	}
	caps[0], caps[1] = 0, end
	if p.capture {
		caps[2], caps[3] = litEnd, end
	}
}

func indexNewline(b []byte) int { return bytes.IndexByte(b, '\n') }

// appendFold appends in folded as (?i) literals compare it: ASCII letters
// lower-cased, and the two non-ASCII characters that fold to ASCII letters,
// K (U+212A, Kelvin) and ſ (U+017F, long s), replaced by k and s. Every
// character stays one character, so wildcards count alike. (Neither
// sequence's first byte is a UTF-8 continuation byte, so a byte scan finds
// them exactly where decoding would.)
func appendFold(dst, in []byte) []byte {
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c = ascii.Lower(c)
		case c == 0xE2 && i+2 < len(in) && in[i+1] == 0x84 && in[i+2] == 0xAA:
			c, i = 'k', i+2
		case c == 0xC5 && i+1 < len(in) && in[i+1] == 0xBF:
			c, i = 's', i+1
		}
		dst = append(dst, c)
	}
	return dst
}

// unfoldOffset maps an offset in appendFold(in) back to one in in.
func unfoldOffset(in []byte, off int) int {
	i := 0
	for n := 0; n < off && i < len(in); n++ {
		switch {
		case in[i] == 0xE2 && i+2 < len(in) && in[i+1] == 0x84 && in[i+2] == 0xAA:
			i += 3
		case in[i] == 0xC5 && i+1 < len(in) && in[i+1] == 0xBF:
			i += 2
		default:
			i++
		}
	}
	return i
}
