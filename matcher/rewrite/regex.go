package rewrite

import (
	"fmt"

	"github.com/redirectd/redirectd/matcher"
)

// regex is what the rewrite phase needs of a regex engine: a match into
// caller-owned captures, with caller-owned working memory. matcher.Pattern
// runs RE2's regexes on matcher's backtracker and the others on
// matcher/pcre.
type regex interface {
	// match fills caps[0:2*(numCaps()+1)] on a match.
	match(s *matcher.Scratch, subject []byte, caps []int) bool
	numCaps() int
	// names are the group names by group number, "" for unnamed ones.
	names() []string
}

// goRegex is a regex on matcher.Pattern.
type goRegex struct{ p *matcher.Pattern }

func (g goRegex) match(s *matcher.Scratch, subject []byte, caps []int) bool {
	return g.p.Match(s, subject, caps)
}
func (g goRegex) numCaps() int    { return g.p.NumCap() }
func (g goRegex) names() []string { return g.p.Names() }

// rx is a compiled regex with the variable slot of each named group
// (-1 for the others).
type rx struct {
	regex
	slots []int
}

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
	re := &rx{regex: goRegex{p}}
	if n := re.numCaps(); n > c.maxCaps {
		c.maxCaps = n
	}
	for _, name := range re.names() {
		slot := -1
		if name != "" {
			slot = c.define(name)
		}
		re.slots = append(re.slots, slot)
	}
	return re, nil
}
