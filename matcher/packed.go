package matcher

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync/atomic"
)

// A packed table holds the plain exact rules of one host (those that are
// case-sensitive, trailing-slash-strict and carry no percent escape in
// From), which is what million-line map files are made of. A Go map of
// *rule costs about 400 bytes and several pointers per rule; here a rule
// is its From and To bytes in one shared arena, a 16-byte entry, an
// 8-byte hash slot or two and an 8-byte hit counter, and no pointer at
// all, so the garbage collector has nothing to scan and a million rules
// take about 100 MB rather than 450.
type packedTable struct {
	arena []byte        // From then To of every entry, back to back
	ents  []packedEntry // in the order the rules were added
	// slots is an open-addressing (linear probing) hash index: 0 is
	// empty, else the low 32 bits are an entry index + 1 and the high 32
	// the high 32 bits of the key's hash (its tag), so a probe rarely
	// touches an entry that is not the one sought. A key's home slot is
	// the top bits of its hash (shift, at least 32), so a slot's value
	// alone gives its home.
	slots []uint64
	shift uint8
	// indexed is how many entries (the first ones) are in the index.
	indexed int
	// touched keeps the reads of home slots that index makes only to
	// have them in the cache (unused, they would be compiled away).
	touched uint64
	hits    []atomic.Uint64 // per entry, made by finish
	last    []atomic.Uint32 // per entry, made by finish: lastanswered.go
	seed    maphash.Seed
	host    string   // the rules' Host, as Rule gives it
	files   []string // File of the entries, by packedEntry.file
	// form is how the keys compare (packed_form.go); 0: plain. A loose
	// table keeps each rule's From as written too, for Rule: orig holds
	// them back to back, origEnd[i] where entry i's ends.
	form    uint8
	orig    []byte
	origEnd []uint32
	// shared: the arrays are another Set's too (Builder.Reuse); own
	// copies them before any is written.
	shared bool
}

// packedEntry is one rule of a packedTable: 16 bytes.
type packedEntry struct {
	off    uint32 // From at arena[off:off+klen], To right after it
	line   uint32
	klen   uint16
	tlen   uint16
	file   uint16 // index into packedTable.files
	status uint8  // the status less 300
	query  QueryMode
}

// Limits bound the packed table of one host and the regex programs of a
// Set. A rule that would pass a limit is refused with an error naming it,
// rather than letting the process run out of memory or offsets wrap.
type Limits struct {
	// HostBytes bounds the From and To bytes of one host's packed rules;
	// arena offsets are 32-bit, so it is at most 4 GiB - 1.
	HostBytes int64
	// HostRules bounds the number of one host's packed rules (entry
	// indexes are 32-bit); at most 2^31.
	HostRules int
	// Programs bounds the regexes compiled to programs (those not
	// answered as literals), and ProgramInsts their instructions in all;
	// 0: no bound. A compiled regex costs about 1.5 KiB plus 40 to 140
	// bytes an instruction once loaded, and several times that while it
	// is compiled: a 5.5 MB map of 100,000 regexes raised a node's peak
	// memory by 0.66 GB, 120 times its size.
	Programs, ProgramInsts int
	// RuleBytes bounds the estimated memory of the rules kept outside
	// packed tables (programs, lowered regexes, rules with conditions),
	// checked as each is added (budget.go); 0: no bound.
	RuleBytes int64
}

// DefaultLimits are the largest limits the packed table's 32-bit offsets
// and indexes allow, and regex budgets 30 times what a real site's
// hand-written 42,000-key regex map compiles to (1,730 programs, 36,787
// instructions: the rest are answered as literals), and a memory budget
// twice what that map costs (20 MB), low enough that a set refused by it,
// with the garbage compiling it left, costs under 64 MiB above the
// running rules (TestRuleBytesRefusedPeak).
var DefaultLimits = Limits{HostBytes: math.MaxUint32, HostRules: math.MaxInt32, Programs: 50_000, ProgramInsts: 2_000_000,
	RuleBytes: 40 << 20}

// packable reports whether in can live in a packed table: a plain exact
// rule (no query conditions either) that is valid and fits the entry's
// fields. Anything else, valid or
// not, takes the ordinary path, which also reports what is wrong with it.
// (Active's times are tested one by one: Window.IsZero copies the
// Window, a fifth of packable's own time at a million rules.)
func packable(in *Rule) bool {
	return in.Kind == Exact && !in.Pass && !in.RequestURI && !in.DecodedPath && !in.CaseInsensitive && !in.TrailingSlash && len(in.Query) == 0 && in.When.Empty() &&
		in.Active.From.IsZero() && in.Active.Until.IsZero() && !in.Shadow && !in.Fallback && len(in.FallbackStatus) == 0 &&
		len(in.From) > 0 && in.From[0] == '/' && len(in.From) <= math.MaxUint16 &&
		plainPath(in.From) &&
		// NeedsEncoding holds for every byte checkTo refuses (controls).
		len(in.To) <= math.MaxUint16 && in.To != "" && !NeedsEncoding(in.To) && !namesNoHost(in.To) &&
		ValidStatus(in.Status) && HasLocation(in.Status) && in.QueryString <= QueryReplace &&
		in.Line >= 0 && in.Line <= math.MaxUint32
}

// plainPath reports whether from holds no '?', '#' or '%' and no byte a
// request target never holds as it is (unsent): one pass over a table,
// as every From of a million-rule map comes here at load.
func plainPath(from string) bool {
	for i := 0; i < len(from); i++ {
		if notPlain[from[i]] {
			return false
		}
	}
	return true
}

var notPlain = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '?' || c == '#' || c == '%' || unsent(byte(c))
	}
	return t
}()

// namesNoHost reports a To that has a scheme or "//" but no host after
// it ("//", "https:///x"), or a host taken from the request: parseTemplate
// refuses it, so the ordinary path takes it and reports why. It reads no
// further than the host's first byte (what authorityEnd and a trim of the
// slashes would give, without the rest of the host: every `to` of a
// million-rule map comes here at load).
func namesNoHost(to string) bool {
	start := schemeEnd(to)
	if start == 0 && (len(to) < 2 || to[0] != '/' && to[0] != '\\' || to[1] != '/' && to[1] != '\\') {
		return false
	}
	for start < len(to) && (to[start] == '/' || to[start] == '\\') {
		start++
	}
	return start == len(to) || to[start] == '?' || to[start] == '#' || to[start] == '$'
}

func newPackedTable(host string) *packedTable {
	return &packedTable{seed: maphash.MakeSeed(), host: host, slots: make([]uint64, 16), shift: 64 - 4}
}

// find returns the index of the entry whose From is key. The table must
// be indexed.
func (t *packedTable) find(key []byte) (uint32, bool) {
	return probe(t, maphash.Bytes(t.seed, key), key)
}

// probe looks for key, whose hash is h.
func probe[K string | []byte](t *packedTable, h uint64, key K) (uint32, bool) {
	tag, mask := uint32(h>>32), uint64(len(t.slots)-1)
	for i := h >> t.shift; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if uint32(s>>32) != tag {
			continue
		}
		e := &t.ents[uint32(s)-1]
		if int(e.klen) == len(key) && string(t.arena[e.off:e.off+uint32(e.klen)]) == string(key) {
			return uint32(s) - 1, true
		}
	}
}

// add appends in, which packable accepted, unless a limit would be
// passed. ok is false, with no error, when the table cannot describe the
// rule (more than 65,535 files): it then takes the ordinary path. The
// entry is not in the hash index yet: index files it, and finds
// duplicates then.
func (t *packedTable) add(in *Rule, lim Limits) (ok bool, err error) {
	t.own()
	file, ok := t.fileIndex(in.File)
	if !ok {
		return false, nil
	}
	size := int64(len(t.arena)) + int64(len(in.From)) + int64(len(in.To))
	if size > lim.HostBytes || size > math.MaxUint32 {
		return false, t.full(fmt.Sprintf("their paths and targets would pass %d bytes", min(lim.HostBytes, math.MaxUint32)))
	}
	if len(t.ents) >= lim.HostRules || len(t.ents) >= math.MaxInt32 {
		return false, t.full(fmt.Sprintf("there would be more than %d", min(lim.HostRules, math.MaxInt32)))
	}
	t.ents = append(t.ents, packedEntry{off: uint32(len(t.arena)), line: uint32(in.Line),
		klen: uint16(len(in.From)), tlen: uint16(len(in.To)), file: file,
		status: uint8(in.Status - 300), query: in.QueryString})
	t.arena = append(append(t.arena, in.From...), in.To...)
	return true, nil
}

// index files the entries added since the last index in the hash index
// and reports each that repeats an earlier From. Filing a million keys
// one by one into a 16 MB index costs a cache miss each, one after the
// other; here the keys are hashed indexBatch at a time, the home slot of
// each read in a row (loads that do not wait on each other, so the
// misses overlap), then filed. Sorting the keys by hash first, to fill
// the slots front to back, cost more than the misses it saved (a sixth
// of the CPU to the first answer at a million rules, on 65,536 buckets)
// and a list of every key's hash.
func (t *packedTable) index() []error {
	if t.indexed == len(t.ents) {
		return nil
	}
	n := len(t.slots)
	for 4*len(t.ents) > 3*n {
		n *= 2
	}
	done, from := t.indexed, t.indexed
	if n > len(t.slots) {
		// A bigger index: the entries indexed before are filed again.
		// At most 2^32 slots (2^31 entries), so shift is at least 32.
		t.slots = make([]uint64, n)
		t.shift = uint8(64 - bits.TrailingZeros(uint(n)))
		from = 0
	}
	t.indexed = len(t.ents)
	// dups are the entries that repeat a key, with the slot of the key.
	type dup struct {
		i    uint32
		slot int
	}
	var dups []dup
	var vs [indexBatch]uint64
	var sink uint64
	for lo := uint32(from); lo < uint32(len(t.ents)); lo += indexBatch {
		m := min(indexBatch, uint32(len(t.ents))-lo)
		for k := range m {
			vs[k] = slotValue(maphash.Bytes(t.seed, t.key(lo+k)), lo+k)
		}
		for _, v := range vs[:m] {
			sink += t.slots[v>>t.shift]
		}
		for _, s := range vs[:m] {
			i := uint32(s) - 1
			j, found := t.probeEntry(s, i)
			if !found {
				t.slots[j] = s
				continue
			}
			later := i
			if in := uint32(t.slots[j]) - 1; later < in {
				later = in
				t.slots[j] = s
			}
			if int(later) >= done { // else reported by an earlier index
				dups = append(dups, dup{later, j})
			}
		}
	}
	t.touched = sink
	var errs []error
	for _, d := range dups {
		r := t.rule(d.i)
		errs = append(errs, ruleError(&r, fieldErr("from", "duplicate exact rule for %q (first defined at %s)", r.From, t.appendSource(nil, uint32(t.slots[d.slot])-1))))
	}
	return errs
}

// indexBatch is how many keys index hashes before it reads their home
// slots: 32 took 40-50 ms of CPU to index a million keys against 55-65
// for 8 and 64 (and 16 within the noise of 32).
const indexBatch = 32

// slotValue is what the index's slot of entry i, whose key hashes to h,
// holds: the high 32 bits of h (the tag) and i + 1. Its top bits are
// those of h, so the key's home slot is slotValue >> shift as well.
func slotValue(h uint64, i uint32) uint64 { return h&^math.MaxUint32 | uint64(i) + 1 }

// probeEntry is probe for the key of entry i, whose slot value is s; it
// reads the entry of a slot only when the slot's tag matches: the
// entries in a run of slots lie anywhere, and reading each one's key
// would cost a cache miss per slot. It returns the slot holding the same
// key, or the empty slot where i belongs.
func (t *packedTable) probeEntry(s uint64, i uint32) (int, bool) {
	tag, mask := uint32(s>>32), uint64(len(t.slots)-1)
	for j := s >> t.shift; ; j = (j + 1) & mask {
		v := t.slots[j]
		if v == 0 {
			return int(j), false
		}
		if uint32(v>>32) == tag && string(t.key(uint32(v)-1)) == string(t.key(i)) {
			return int(j), true
		}
	}
}

func (t *packedTable) full(why string) error {
	host := "host-less rules"
	if t.host != "" {
		host = "host " + strconv.Quote(t.host)
	}
	return &FieldError{Field: "from", err: ErrLimit,
		Msg: fmt.Sprintf("too many exact rules for %s: %s, the most one host's rule table holds; split the rules over more hosts or use prefix rules", host, why)}
}

func (t *packedTable) fileIndex(file string) (uint16, bool) {
	for i := len(t.files) - 1; i >= 0; i-- { // the last file is the likely one
		if t.files[i] == file {
			return uint16(i), true
		}
	}
	if len(t.files) > math.MaxUint16 {
		return 0, false
	}
	t.files = append(t.files, file)
	return uint16(len(t.files) - 1), true
}

// grow makes room for rules more entries of bytes more arena bytes.
func (t *packedTable) grow(rules, bytes int) {
	t.own()
	bytes = min(bytes, math.MaxUint32-len(t.arena))
	if len(t.arena) == 0 {
		// Not slices.Grow, which clears the new room: fresh memory from
		// the OS is zero already, and clearing 100 MB in one go holds up
		// the garbage collector's stop-the-world.
		t.arena = make([]byte, 0, bytes)
	} else {
		t.arena = slices.Grow(t.arena, bytes)
	}
	if len(t.ents) == 0 && rules > cap(t.ents) {
		t.ents = make([]packedEntry, 0, rules) // not cleared, as the arena
	} else {
		t.ents = slices.Grow(t.ents, rules)
	}
}

// finish makes the hit counters and gives back the room append left at
// the end of the arena and the entries, which for a big map is tens of
// megabytes held for the life of the Set.
func (t *packedTable) finish() {
	// The arena is copied only when more than an eighth of it is unused:
	// the copy holds both at once, and for a map file sized by Grow (the
	// file's bytes less its newlines, which keep the spaces and semicolons
	// out of the arena) it was 40 MB of a million-rule load's 55 MB peak
	// over the settled RSS, to give back 4.
	if cap(t.arena)-len(t.arena) > cap(t.arena)/8 {
		t.arena = bytes.Clone(t.arena)
	}
	if cap(t.ents)-len(t.ents) > len(t.ents)/16 {
		t.ents = append([]packedEntry(nil), t.ents...)
	}
	if cap(t.orig)-len(t.orig) > len(t.orig)/16 {
		t.orig = bytes.Clone(t.orig)
	}
	if cap(t.origEnd)-len(t.origEnd) > len(t.origEnd)/16 {
		t.origEnd = append([]uint32(nil), t.origEnd...)
	}
	t.hits = make([]atomic.Uint64, len(t.ents))
	t.last = make([]atomic.Uint32, len(t.ents))
}

func (t *packedTable) key(i uint32) []byte {
	e := &t.ents[i]
	return t.arena[e.off : e.off+uint32(e.klen)]
}

func (t *packedTable) to(i uint32) []byte {
	e := &t.ents[i]
	start := e.off + uint32(e.klen)
	return t.arena[start : start+uint32(e.tlen)]
}

func (t *packedTable) status(i uint32) int { return int(t.ents[i].status) + 300 }

// appendLocation is template.appendLocation for a packed rule: To, less
// its query when the rule drops queries, then the request's query when it
// keeps them.
func (t *packedTable) appendLocation(dst []byte, i uint32, query []byte) []byte {
	to := t.to(i)
	switch t.ents[i].query {
	case QueryDrop:
		if q := bytes.IndexByte(to, '?'); q >= 0 {
			if f := bytes.IndexByte(to, '#'); f < 0 || q < f {
				dst = append(dst, to[:q]...)
				if f >= 0 {
					dst = append(dst, to[f:]...)
				}
				return dst
			}
		}
		return append(dst, to...)
	case QueryReplace:
		return append(dst, to...)
	}
	mark := len(dst)
	dst = append(dst, to...)
	if len(query) > 0 {
		head := to
		if f := bytes.IndexByte(to, '#'); f >= 0 {
			head = to[:f]
		}
		dst = appendQuery(dst, mark, query, bytes.IndexByte(head, '?') >= 0)
	}
	return dst
}

// appendSource appends entry i's "file:line".
func (t *packedTable) appendSource(dst []byte, i uint32) []byte {
	dst = append(dst, t.files[t.ents[i].file]...)
	dst = append(dst, ':')
	return strconv.AppendUint(dst, uint64(t.ents[i].line), 10)
}

// rule returns entry i as a Rule; it allocates its From and To.
func (t *packedTable) rule(i uint32) Rule {
	e := &t.ents[i]
	from := t.key(i)
	if t.origEnd != nil {
		start := uint32(0)
		if i > 0 {
			start = t.origEnd[i-1]
		}
		from = t.orig[start:t.origEnd[i]]
	}
	return Rule{Kind: Exact, Host: t.host, From: string(from), To: string(t.to(i)),
		Status: t.status(i), QueryString: e.query, File: t.files[e.file], Line: int(e.line),
		CaseInsensitive: t.form&formFold != 0, TrailingSlash: t.form&formSlash != 0,
		DecodedPath: t.form&formDecoded != 0, UnicodeFold: t.form&formUnicode != 0}
}
