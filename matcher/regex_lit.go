package matcher

import "bytes"

// litTables answer the lowered regexes of one case mode: exact patterns
// by a hash lookup of the whole input, every other pattern through a radix
// tree keyed by its literal up to the first wildcard. A lookup costs one
// hash lookup and one walk along the input, whatever the number of
// patterns.
type litTables struct {
	exact map[string]*rule // the earliest rule for each key
	tree  *radix
	lists [][]*rule // by radix value, in file order
}

// add files e, a rule with lit.
func (t *litTables) add(e *rule) {
	if e.lit.exact() {
		if t.exact == nil {
			t.exact = make(map[string]*rule)
		}
		keys := [2]string{e.lit.pat, e.lit.pat + "/"}
		n := 1
		if e.lit.tail == tailSlashEnd {
			n = 2
		}
		for _, k := range keys[:n] {
			if _, dup := t.exact[k]; !dup {
				t.exact[k] = e // an earlier rule of the same key always wins
			}
		}
		return
	}
	if t.tree == nil {
		t.tree = newRadix()
	}
	key := e.lit.key()
	if v, n, ok := t.tree.longest([]byte(key)); ok && n == len(key) {
		t.lists[v] = append(t.lists[v], e)
		return
	}
	t.tree.insert(key, int32(len(t.lists)))
	t.lists = append(t.lists, []*rule{e})
}

// litHit is the earliest lowered rule that matched, with where its
// literal and its match end.
type litHit struct {
	e           *rule
	litEnd, end int
}

// lookup sets hit to the earliest entry matching in if it comes before
// hit's, skipping rules whose query conditions query fails.
func (t *litTables) lookup(in, query []byte, hit *litHit) {
	if e := t.exact[string(in)]; e != nil && e.before(hit) && e.condsHold(query) {
		*hit = litHit{e: e, litEnd: len(e.lit.pat), end: len(in)}
	}
	if t.tree == nil {
		return
	}
	for n, pos := &t.tree.root, 0; n != nil; n, pos = n.step(in, pos) {
		if n.val < 0 {
			continue
		}
		for _, e := range t.lists[n.val] {
			if !e.before(hit) {
				break
			}
			if litEnd, end, ok := e.lit.match(in); ok && e.condsHold(query) {
				*hit = litHit{e: e, litEnd: litEnd, end: end}
				break
			}
		}
	}
}

// before reports whether e comes before the hit so far in file order.
func (e *rule) before(hit *litHit) bool {
	return hit.e == nil || e.seq < hit.e.seq
}

// fillCaps writes the hit's captures over in (the unfolded input) to
// caps, mapping offsets in the folded input back when folding changed
// lengths.
func (hit *litHit) fillCaps(caps []int, in, folded []byte) {
	litEnd, end := hit.litEnd, hit.end
	if len(folded) != len(in) {
		litEnd, end = unfoldOffset(in, litEnd), unfoldOffset(in, end)
	}
	caps[0], caps[1] = 0, end
	if hit.e.lit.capture {
		caps[2], caps[3] = litEnd, end
	}
}

func indexNewline(b []byte) int { return bytes.IndexByte(b, '\n') }

// appendFold appends in folded as (?i) literals compare it: ASCII letters
// lower-cased, and the two non-ASCII characters that fold to ASCII letters,
// K (U+212A, Kelvin) and ſ (U+017F, long s), replaced by k and s. Every
// character stays one character, so wildcards count alike.
func appendFold(dst, in []byte) []byte {
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
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
