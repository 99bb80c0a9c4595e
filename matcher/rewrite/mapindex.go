package rewrite

import "github.com/redirectd/redirectd/matcher"

// A map's regex keys are tried in order, as nginx tries them; a map of
// thousands (a site's moved pages, each "~^/old/page$", and keys with no
// literal start such as "~^/.*/tripbest/.*$") would cost a request
// thousands of regex runs. Such a map's keys are also compiled as the
// regex rules of a matcher.Set, in file order, each rule's Line its
// key's position: the Set answers the first rule in file order that
// matches, through the index the flat rules use (literal patterns in a
// radix tree, the others by literal prefix or by a gram of a literal
// inside them), so a lookup costs what a flat rule's does. The key it
// names is then run once more for its captures. What matches, and which
// key wins, is what the plain walk gives (FuzzMapIndex).

// minIndexedRegexes: a map with fewer regex keys is walked in order.
const minIndexedRegexes = 32

// regexIndex finds the first of a map's regex keys that matches a value.
type regexIndex struct{ set *matcher.Set }

// buildRegexIndex compiles a map's regex keys, given as written (without
// "~" or "~*"; ci for "~*"), when there are enough of them to pay; nil
// when there are few, or the Set refuses one (the map is then walked).
func buildRegexIndex(exprs []string, ci []bool) *regexIndex {
	if len(exprs) < minIndexedRegexes {
		return nil
	}
	b := matcher.NewBuilder(matcher.DefaultLimits)
	for i, e := range exprs {
		// RequestURI: the rule compares the bytes given as they are,
		// not a normalised path. To is never sent.
		r := matcher.Rule{Kind: matcher.Regex, From: e, CaseInsensitive: ci[i], To: "/", Status: 301, RequestURI: true, Line: i}
		if err := b.Add(&r); err != nil {
			return nil
		}
	}
	set, err := b.Set()
	if err != nil {
		return nil
	}
	return &regexIndex{set: set}
}

// first returns the position of the first key that matches key, -1 for
// none; it allocates nothing once m has grown.
func (x *regexIndex) first(key []byte, m *matcher.Match) int {
	if !x.set.Lookup(nil, key, nil, m) {
		return -1
	}
	return m.Line()
}
