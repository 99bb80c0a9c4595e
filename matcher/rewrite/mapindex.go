package rewrite

import (
	"regexp/syntax"
	"sync"

	"github.com/redirectd/redirectd/matcher"
)

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

// The Set compiles the keys, most of them into its literal forms, which
// hold a fraction of what a compiled regex does. So a key with no group,
// whose match the Set's answer settles, is not compiled a second time
// for the map: mapKeyRegex leaves it lazy (no rx at all: 68 bytes a key
// were 3 MiB of gwern.net's map), and only the walk past a key that did
// not match again (a PCRE key out of budget) compiles it (keyRegex).
// On gwern.net's 42,209 keys that halves the heap the map holds
// (BenchmarkMapGwernHeap). The Set depends on the keys alone, so the
// hosts of one CompileHosts share it (share.regexIndex) even when the
// map itself is compiled per host (it defines a named group).

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
	// The keys are the map's own (mapRegex.expr), kept as long as it.
	b.KeepStrings()
	b.NginxRegexes()
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

// mapKeyRegex is compileRegex of a map's key, except that a key with no
// group (as RE2 parses it) is left lazy, returned nil: compileMap
// compiles it once it knows the map has no index.
func (c *compiler) mapKeyRegex(expr string, ci bool) (*rx, error) {
	if re, err := syntax.Parse(regexSource(expr, ci), syntax.Perl); err == nil && re.MaxCap() == 0 {
		return nil, nil
	}
	return c.compileRegex(expr, ci)
}

// lazyKeys holds the lazy keys of a map compiled so far, by position:
// few, as only a walk past a key that did not match again reaches one.
type lazyKeys struct {
	mu sync.Mutex
	rx map[int]*rx
}

// keyRegex returns regex key j, compiling a lazy one once for all loops
// (it allocates then, and only then).
func (m *mapVar) keyRegex(j int) *rx {
	if r := m.regexes[j].re; r != nil {
		return r
	}
	m.lazy.mu.Lock()
	defer m.lazy.mu.Unlock()
	r := m.lazy.rx[j]
	if r == nil {
		if m.lazy.rx == nil {
			m.lazy.rx = make(map[int]*rx)
		}
		r = &rx{lazy: &lazyPattern{src: regexSource(m.regexes[j].expr, m.regexes[j].ci)}}
		m.lazy.rx[j] = r
	}
	return r
}

// buildMapIndex is buildRegexIndex of a map's regex keys.
func buildMapIndex(regexes []mapRegex) *regexIndex {
	exprs, ci := make([]string, len(regexes)), make([]bool, len(regexes))
	for i, r := range regexes {
		exprs[i], ci[i] = r.expr, r.ci
	}
	return buildRegexIndex(exprs, ci)
}
