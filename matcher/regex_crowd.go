package matcher

import "unicode/utf8"

// litCrowded is the longest list of lowered patterns that a lookup tries
// one by one. A real site's map keyed 165 patterns under "/" alone, each
// with a wildcard right after it (`^/.rss$`, `^/.../1942-borges$`), and
// 420 under "/doc/rotten", its domain's dot being a wildcard
// (`^/doc/rotten.com/library/sex/rape/$`): every path with such a
// beginning tried them all.
const litCrowded = 16

// litCrowd indexes a crowded list of patterns by what follows the
// wildcard they share at offset at. While the wildcards meet ASCII bytes
// (each then takes one byte), pattern offsets are input offsets, so the
// text after the wildcard is looked up in a radix tree as the key before
// it was; a non-ASCII byte there tries the whole list.
type litCrowd struct {
	at int
	// tree maps the text between the wildcard at at and the next one (or
	// the pattern's end) to lists, in file order; subs[v] is lists[v]
	// indexed in turn when it is crowded too.
	tree  *radix
	lists [][]int32
	subs  []*litCrowd
	// all are the entries with a wildcard at at; rest those without one
	// (the key is their whole literal), always tried.
	all, rest []int32
}

// crowd builds the litCrowds of t's crowded chains, by their head.
func (t *litTables) crowd(x *regexIndex) {
	if t.tree == nil {
		return
	}
	var walk func(n *radixNode, depth int)
	walk = func(n *radixNode, depth int) {
		depth += len(n.label)
		if n.val >= 0 {
			var list []int32
			for i := n.val; i >= 0; i = x.lit(i).next {
				list = append(list, i)
			}
			if len(list) > litCrowded {
				if t.crowds == nil {
					t.crowds = make(map[int32]*litCrowd)
				}
				t.crowds[n.val] = newLitCrowd(x, list, depth)
			}
		}
		for _, c := range n.children {
			walk(c, depth)
		}
	}
	walk(&t.tree.root, 0)
}

// newLitCrowd indexes list (ascending) by the text after the wildcard at
// offset at.
func newLitCrowd(x *regexIndex, list []int32, at int) *litCrowd {
	c := &litCrowd{at: at, tree: newRadix()}
	keys := make(map[string]int32)
	var subKeys []string
	for _, i := range list {
		p := &x.lit(i).litPattern
		end, ok := p.afterWild(at)
		if !ok {
			c.rest = append(c.rest, i)
			continue
		}
		c.all = append(c.all, i)
		k := p.pat[at+1 : end]
		v, seen := keys[k]
		if !seen {
			v = int32(len(c.lists))
			keys[k] = v
			c.tree.insert(k, v)
			c.lists = append(c.lists, nil)
			subKeys = append(subKeys, k)
		}
		c.lists[v] = append(c.lists[v], i)
	}
	c.tree.compact()
	c.subs = make([]*litCrowd, len(c.lists))
	for v, l := range c.lists {
		if len(l) > litCrowded {
			if sub := newLitCrowd(x, l, at+1+len(subKeys[v])); len(sub.all) > 0 {
				c.subs[v] = sub
			}
		}
	}
	return c
}

// afterWild reports whether p has a wildcard at offset at, and where the
// literal text after it ends: at the next wildcard or the pattern's end.
func (p *litPattern) afterWild(at int) (int, bool) {
	for k, w := range p.wild {
		if int(w) == at {
			if k+1 < len(p.wild) {
				return int(p.wild[k+1]), true
			}
			return len(p.pat), true
		}
	}
	return 0, false
}

// lookup is litTables.tryChain for a crowded chain.
func (c *litCrowd) lookup(x *regexIndex, in []byte, hit *litHit) {
	tryList(x, in, c.rest, hit)
	if c.at >= len(in) {
		return // a wildcard takes a byte at least
	}
	switch b := in[c.at]; {
	case b == '\n':
		return // which no wildcard matches
	case b >= utf8.RuneSelf:
		tryList(x, in, c.all, hit)
		return
	}
	for n, pos := &c.tree.root, c.at+1; n != nil; n, pos = n.step(in, pos) {
		if n.val < 0 {
			continue
		}
		if sub := c.subs[n.val]; sub != nil {
			sub.lookup(x, in, hit)
		} else {
			tryList(x, in, c.lists[n.val], hit)
		}
	}
}

// tryList sets hit to the first entry of list (ascending) that matches in,
// if it comes before hit's.
func tryList(x *regexIndex, in []byte, list []int32, hit *litHit) {
	for _, i := range list {
		if hit.i >= 0 && i >= hit.i {
			return
		}
		if litEnd, end, ok := x.lit(i).match(in); ok {
			*hit = litHit{i: i, litEnd: litEnd, end: end}
			return
		}
	}
}
