package rewrite

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/redirectd/redirectd/matcher"
)

// rx is a compiled regex (matcher.Pattern: RE2's regexes on matcher's
// backtracker, the others on matcher/pcre) with its group count and the
// variable slot of each group (-1 for an unnamed one; none at all when
// no group is named). The count is kept here, and the Pattern called
// directly, because a rewrite's regex runs on every request that
// reaches its location.
type rx struct {
	p     *matcher.Pattern
	ncaps int
	slots []int
	// lazy, with p nil, is a map's key that its index (a matcher.Set)
	// matches and that has no group: a run of its own is wanted only
	// on the rare walk past a key that did not match again, so it is
	// compiled then (mapindex.go).
	lazy *lazyPattern
}

// lazyPattern is a regex compiled on first use, once for all loops.
type lazyPattern struct {
	src string
	p   atomic.Pointer[matcher.Pattern]
}

// match fills caps[0:2*(numCaps()+1)] on a match.
func (r *rx) match(s *matcher.Scratch, subject []byte, caps []int) bool {
	p := r.p
	if p == nil {
		if p = r.lazy.get(); p == nil {
			return false
		}
	}
	return p.Match(s, subject, caps)
}

// get returns the compiled regex, nil if it does not compile (its Set
// took it; matcher.CompilePattern should too).
func (l *lazyPattern) get() *matcher.Pattern {
	if p := l.p.Load(); p != nil {
		return p
	}
	p, err := matcher.CompilePattern(l.src)
	if err != nil {
		return nil
	}
	l.p.CompareAndSwap(nil, p)
	return l.p.Load()
}

// numCaps is 0 for a nil rx, a map's lazy key (which has no group).
func (r *rx) numCaps() int {
	if r == nil {
		return 0
	}
	return r.ncaps
}

// regexSource is expr as matcher.CompilePattern takes it.
func regexSource(expr string, ci bool) string {
	if ci {
		return "(?i)" + expr
	}
	return expr
}

// compileRegex compiles expr, case-insensitive with ci (nginx's "~*"),
// and defines its named groups as variables.
func (c *compiler) compileRegex(expr string, ci bool) (*rx, error) {
	src := regexSource(expr, ci)
	p, err := c.shared.pattern(src)
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %v", expr, err)
	}
	re := &rx{p: p, ncaps: p.NumCap()}
	if n := re.numCaps(); n > c.maxCaps {
		c.maxCaps = n
	}
	names := p.Names()
	if !slices.ContainsFunc(names, func(n string) bool { return n != "" }) {
		return re, nil // no slots: a match sets no variable
	}
	for _, name := range names {
		slot := -1
		if name != "" {
			slot = c.define(name)
		}
		re.slots = append(re.slots, slot)
	}
	return re, nil
}
