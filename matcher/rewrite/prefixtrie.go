package rewrite

import "bytes"

// prefixTrie files a level's prefix locations by path in a radix tree:
// the longest prefix of a URI is one walk along it, a byte compared
// once, where probing a map at each distinct prefix length hashed the
// URI's head once per length (a werf-like level of 330 docs locations
// has a dozen lengths, and two levels of them cost a rewrite inside a
// location a fifth of its time).
type prefixTrie struct {
	root trieNode
	// start is where longest begins once lead, the bytes every path
	// starts with (the '/' of all, at least), matched: the nodes above
	// it have one kid and no location.
	start *trieNode
	lead  string
}

// trieNode is the point after its edge's label; loc is the prefix
// location whose path ends here, if any.
type trieNode struct {
	label string
	loc   *location
	// first holds the first byte of each kid's label, kids in the
	// same order: one IndexByte finds the edge to follow.
	first []byte
	kids  []*trieNode
	// byByte is index+1 of the kid for each first byte, in a node of
	// more than wideNode kids (nil in the others): a werf-like level
	// branches ten or more ways at each digit of a version.
	byByte *[256]uint16
}

// wideNode is the number of kids above which a node indexes them by
// byte.
const wideNode = 8

// add files l under p (its path, less the level's skip); a path already
// there keeps its first location (the compiler refuses a second).
func (t *prefixTrie) add(p string, l *location) {
	n := &t.root
	for {
		if p == "" {
			if n.loc == nil {
				n.loc = l
			}
			return
		}
		i := bytes.IndexByte(n.first, p[0])
		if i < 0 {
			n.first = append(n.first, p[0])
			n.kids = append(n.kids, &trieNode{label: p, loc: l})
			return
		}
		k := n.kids[i]
		c := commonPrefix(k.label, p)
		if c < len(k.label) {
			// Split k's edge where p leaves it.
			mid := &trieNode{label: k.label[:c], first: []byte{k.label[c]}, kids: []*trieNode{k}}
			k.label = k.label[c:]
			n.kids[i] = mid
			k = mid
		}
		n, p = k, p[c:]
	}
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// longest returns the location with the longest path that is a prefix
// of uri (nil if none), and whether that path is uri itself.
func (t *prefixTrie) longest(uri []byte) (best *location, whole bool) {
	if len(uri) < len(t.lead) {
		return nil, false
	}
	for i := range len(t.lead) {
		if uri[i] != t.lead[i] {
			return nil, false
		}
	}
	n, rest := t.start, uri[len(t.lead):]
	for {
		if n.loc != nil {
			best, whole = n.loc, len(rest) == 0
		}
		if len(rest) == 0 {
			return best, whole
		}
		k := n.kid(rest[0])
		if k == nil {
			return best, false
		}
		n = k
		if len(rest) < len(n.label) {
			return best, false
		}
		// Labels are a few bytes: a loop costs less than memequal's call.
		for i := 1; i < len(n.label); i++ { // kid matched byte 0
			if rest[i] != n.label[i] {
				return best, false
			}
		}
		rest = rest[len(n.label):]
	}
}

// finish readies t for longest once all are added: start, lead and the
// wide nodes' byByte.
func (t *prefixTrie) finish() {
	t.start = &t.root
	for t.start.loc == nil && len(t.start.kids) == 1 {
		t.start = t.start.kids[0]
		t.lead += t.start.label
	}
	t.root.index()
}

// index sets byByte in the wide nodes under n.
func (n *trieNode) index() {
	if len(n.kids) > wideNode {
		n.byByte = new([256]uint16)
		for i, c := range n.first {
			n.byByte[c] = uint16(i + 1)
		}
	}
	for _, k := range n.kids {
		k.index()
	}
}

// kid is the kid whose label starts with c, nil if none: by byByte in a
// wide node, else a loop (not IndexByte: a few kids cost less than its
// call).
func (n *trieNode) kid(c byte) *trieNode {
	if n.byByte != nil {
		if i := n.byByte[c]; i > 0 {
			return n.kids[i-1]
		}
		return nil
	}
	for i, f := range n.first {
		if f == c {
			return n.kids[i]
		}
	}
	return nil
}
