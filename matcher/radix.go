package matcher

import (
	"bytes"
)

// radix is a compressed byte trie mapping strings to int32 values. It serves
// the longest-prefix lookups of prefix rules and the literal-prefix index of
// regex rules: a walk visits at most one node per edge along the path, so its
// cost depends on the path, not on how many strings the tree holds.
//
// It is built by insert and read-only afterwards.
type radix struct {
	root radixNode
}

type radixNode struct {
	label string // edge label leading to this node
	val   int32  // -1 when no string ends here
	// first holds the first byte of each child's label, in the same order
	// as children, so the next edge is found with one bytes.IndexByte.
	first    []byte
	children []*radixNode
}

func newRadix() *radix {
	return &radix{root: radixNode{val: -1}}
}

// insert stores val under key, replacing an existing value; it returns the
// previous value or -1.
func (t *radix) insert(key string, val int32) int32 {
	n := &t.root
	for {
		if key == "" {
			old := n.val
			n.val = val
			return old
		}
		i := bytes.IndexByte(n.first, key[0])
		if i < 0 {
			n.first = append(n.first, key[0])
			n.children = append(n.children, &radixNode{label: key, val: val})
			return -1
		}
		c := n.children[i]
		common := commonPrefix(c.label, key)
		if common < len(c.label) {
			// Split c: a new node holds the shared part, c keeps the rest.
			mid := &radixNode{label: c.label[:common], val: -1}
			c.label = c.label[common:]
			mid.first = []byte{c.label[0]}
			mid.children = []*radixNode{c}
			n.children[i] = mid
			c = mid
		}
		n = c
		key = key[common:]
	}
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// longest returns the value of the longest key that is a prefix of path, the
// key's length, and false when no key is.
func (t *radix) longest(path []byte) (int32, int, bool) {
	val, end := t.root.val, 0
	found := val >= 0
	for n, pos := t.root.step(path, 0); n != nil; n, pos = n.step(path, pos) {
		if n.val >= 0 {
			val, end, found = n.val, pos, true
		}
	}
	return val, end, found
}

// step follows the edge from n that path continues with at pos, and
// returns the child and the position after its label, or nil when no
// edge matches.
func (n *radixNode) step(path []byte, pos int) (*radixNode, int) {
	if pos >= len(path) {
		return nil, pos
	}
	i := bytes.IndexByte(n.first, path[pos])
	if i < 0 {
		return nil, pos
	}
	c := n.children[i]
	if len(path)-pos < len(c.label) || string(path[pos:pos+len(c.label)]) != c.label {
		return nil, pos
	}
	return c, pos + len(c.label)
}

// compact lays the tree out again in three arrays: its nodes, their
// first bytes and their children. Built by insert, each node, first and
// children list is a small object of its own, left among the load's
// garbage: a map of 42,000 regex keys made 72,000 nodes, and the spans
// they kept from being freed were a quarter of the heap. The tree reads
// the same afterwards.
func (t *radix) compact() {
	nodes, edges := 0, 0
	var count func(n *radixNode)
	count = func(n *radixNode) {
		nodes++
		edges += len(n.children)
		for _, c := range n.children {
			count(c)
		}
	}
	count(&t.root)
	slab := make([]radixNode, 0, nodes-1)
	first := make([]byte, 0, edges)
	kids := make([]*radixNode, 0, edges)
	var lay func(n *radixNode)
	lay = func(n *radixNode) {
		if len(n.children) == 0 {
			n.first, n.children = nil, nil
			return
		}
		f, k := len(first), len(kids)
		first = append(first, n.first...)
		for _, c := range n.children {
			slab = append(slab, *c)
			kids = append(kids, &slab[len(slab)-1])
		}
		n.first, n.children = first[f:len(first):len(first)], kids[k:len(kids):len(kids)]
		for _, c := range n.children {
			lay(c)
		}
	}
	lay(&t.root)
}
