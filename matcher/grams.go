package matcher

import "slices"

// gramIndex files regexes by one 3-byte piece, a gram, of a literal
// every match of theirs holds: a regex is a candidate only for an input
// that holds its gram. Each goes under the gram of its literals that the
// fewest regexes hold, since a gram common to many patterns (".ht",
// "tml") is likely common in inputs too. The grams of an input are
// checked against a 64 Ki-bit filter before the map, so most cost an
// array load. Immutable once built.
type gramIndex struct {
	lists map[uint32][]*rule
	bits  *[gramBits / 64]uint64
}

const gramBits = 1 << 16

func gramOf(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }

func gramBit(g uint32) uint32 { return (g * 0x9E3779B1) >> 16 }

// newGramIndex files rs, in their order, each under a gram of its
// required literals (byte strings every match holds, compared with
// case). A regex whose literals are all shorter than 3 bytes is left
// out: the caller keeps it elsewhere. It returns nil when none has a
// gram.
func newGramIndex(rs []*rule) *gramIndex {
	required := func(r *rule) []string { return r.prog.required }
	items := rs
	freq := make(map[uint32]int)
	for _, it := range items {
		for _, s := range required(it) {
			for i := 0; i+3 <= len(s); i++ {
				freq[gramOf([]byte(s[i:]))]++
			}
		}
	}
	if len(freq) == 0 {
		return nil
	}
	x := &gramIndex{lists: make(map[uint32][]*rule), bits: new([gramBits / 64]uint64)}
	for _, it := range items {
		best, bestN := uint32(0), -1
		for _, s := range required(it) {
			for i := 0; i+3 <= len(s); i++ {
				g := gramOf([]byte(s[i:]))
				if n := freq[g]; bestN < 0 || n < bestN {
					best, bestN = g, n
				}
			}
		}
		if bestN < 0 {
			continue
		}
		x.lists[best] = append(x.lists[best], it)
		b := gramBit(best)
		x.bits[b/64] |= 1 << (b % 64)
	}
	return x
}

// grams appends to gs (cut to length 0) the grams of in that may file
// items, sorted and each once, so that each gram's items are taken once
// however often the input holds it: a path repeating one gram 2,666
// times made a list of 300 regexes 800,000 candidates long. tmp is a
// buffer it may grow; it returns the grams and the buffer, both for the
// next call, and allocates nothing once they have grown.
func (x *gramIndex) grams(in []byte, gs, tmp []uint32) (grams, spare []uint32) {
	gs = gs[:0]
	for i := 0; i+3 <= len(in); i++ {
		g := gramOf(in[i:])
		if b := gramBit(g); x.bits[b/64]&(1<<(b%64)) != 0 {
			gs = append(gs, g)
		}
	}
	switch {
	case len(gs) > smallGrams:
		gs, tmp = sortGrams(gs, tmp)
	case len(gs) > 1:
		// A path's few: three radix passes, each clearing a 2 KiB
		// count, were a model map lookup's largest cost.
		slices.Sort(gs)
	}
	gs = slices.Compact(gs)
	return gs, tmp
}

// smallGrams is the most grams sorted by comparison, in place.
const smallGrams = 64

// items returns the regexes filed under g, in their order; the caller
// must not change them.
func (x *gramIndex) items(g uint32) []*rule { return x.lists[g] }

// sortGrams sorts grams (24-bit values) by radix, three passes of a byte
// each, in time linear in their number whatever they hold: a comparison
// sort's n log n is the one step of a lookup that was not linear in the
// path. tmp is a buffer it may grow; it returns the sorted grams and the
// other buffer, both for the next call.
func sortGrams(gs, tmp []uint32) (sorted, spare []uint32) {
	if cap(tmp) < len(gs) {
		tmp = make([]uint32, len(gs))
	}
	tmp = tmp[:len(gs)]
	for shift := uint(0); shift < 24; shift += 8 {
		var count [257]int
		for _, g := range gs {
			count[(g>>shift)&0xff+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, g := range gs {
			b := (g >> shift) & 0xff
			tmp[count[b]] = g
			count[b]++
		}
		gs, tmp = tmp, gs
	}
	return gs, tmp
}
