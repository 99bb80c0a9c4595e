package matcher

import (
	"slices"
	"strings"
)

// CraftedPath returns a path of at most n bytes that no rule matches, made of the literals of s's
// host-less regexes that run on the backtracker, as an attacker who reads
// the rules would write it: for each regex that needs more than one
// literal and has no literal ending, those literals in reverse order,
// which each regex needs in order, so that most fail only after running.
func CraftedPath(s *Set, n int) []byte {
	var rs []*rule
	for _, x := range []*regexIndex{&s.any.regex, &s.any.uriRegex} {
		rs = append(rs, x.real.always...)
		for _, l := range x.real.lists {
			rs = append(rs, l...)
		}
		if g := x.real.grams; g != nil {
			for _, l := range g.lists {
				rs = append(rs, l...)
			}
		}
	}
	slices.SortFunc(rs, func(a, b *rule) int { return int(a.seq - b.seq) })
	var path []byte
	var m Match
	for _, r := range rs {
		if len(r.prog.required) < 2 || len(r.prog.suffix) > 0 {
			continue
		}
		mark := len(path)
		for i := len(r.prog.required) - 1; i >= 0; i-- {
			lit := r.prog.required[i]
			if strings.IndexFunc(lit, func(c rune) bool { return c <= ' ' || c >= 0x7f || strings.ContainsRune("%?#", c) }) < 0 {
				path = append(append(path, '/'), lit...)
			}
		}
		// A hit would end the lookup early: the literals that make one
		// are left out.
		if len(path) > n || s.Lookup(nil, path, nil, &m) {
			path = path[:mark]
		}
	}
	return path
}
