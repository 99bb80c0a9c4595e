package rewrite

import (
	"fmt"
	"slices"

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
}

// match fills caps[0:2*(numCaps()+1)] on a match.
func (r *rx) match(s *matcher.Scratch, subject []byte, caps []int) bool {
	return r.p.Match(s, subject, caps)
}

func (r *rx) numCaps() int { return r.ncaps }

// compileRegex compiles expr, case-insensitive with ci (nginx's "~*"),
// and defines its named groups as variables.
func (c *compiler) compileRegex(expr string, ci bool) (*rx, error) {
	src := expr
	if ci {
		src = "(?i)" + expr
	}
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
