package matcher

import (
	"regexp/syntax"
	"strings"
)

// regexIndex finds the regex rules that can match a path without running
// the others. Each regex is filed under its literal prefix (the text an
// anchored pattern must start with); only the regexes filed under prefixes
// of the path are candidates. Unanchored patterns are filed under "" and are
// candidates for every path.
type regexIndex struct {
	tree *radix
	// lists[v] holds indexes into rules of the regexes filed under one
	// literal prefix, in file order.
	lists [][]int32
	rules []*rule
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
		if s.Op != syntax.OpLiteral || s.Flags&syntax.FoldCase != 0 {
			break
		}
		b.WriteString(string(s.Rune))
	}
	return b.String()
}

func (x *regexIndex) add(r *rule) {
	if x.tree == nil {
		x.tree = newRadix()
	}
	idx := int32(len(x.rules))
	x.rules = append(x.rules, r)
	key := r.prog.literal
	if v, _, ok := x.exact(key); ok {
		x.lists[v] = append(x.lists[v], idx)
		return
	}
	x.tree.insert(key, int32(len(x.lists)))
	x.lists = append(x.lists, []int32{idx})
}

// exact returns the list number stored under exactly key.
func (x *regexIndex) exact(key string) (int32, int, bool) {
	v, n, ok := x.tree.longest([]byte(key))
	return v, n, ok && n == len(key)
}

// lookup returns the first regex rule in file order that matches path,
// filling m's captures. Every list met along the path is scanned in order
// and stops at its first match or at a rule later than the best so far, so
// the result is the earliest matching rule overall.
func (x *regexIndex) lookup(path []byte, m *Match) *rule {
	if x.tree == nil {
		return nil
	}
	var best *rule
	bestIdx := int32(len(x.rules))
	for n, pos := &x.tree.root, 0; n != nil; n, pos = n.step(path, pos) {
		if n.val < 0 {
			continue
		}
		for _, i := range x.lists[n.val] {
			if i >= bestIdx {
				break
			}
			r := x.rules[i]
			if len(r.Query) > 0 && !condsHold(r.Query, m.query) {
				continue
			}
			if m.matchRegex(r, path) {
				best, bestIdx = r, i
				break
			}
		}
	}
	if best != nil && best != m.capsOf {
		// A later candidate overwrote the captures; rerun the winner.
		m.matchRegex(best, path)
	}
	return best
}
