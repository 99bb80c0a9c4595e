package matcher

import (
	"slices"
	"strings"
)

// CraftedPath returns a path of about n bytes made of the literals of s's
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
		for _, l := range x.real.grams {
			rs = append(rs, l...)
		}
	}
	slices.SortFunc(rs, func(a, b *rule) int { return int(a.seq - b.seq) })
	path := []byte{}
	for _, r := range rs {
		if len(r.prog.required) < 2 || len(r.prog.suffix) > 0 {
			continue
		}
		for i := len(r.prog.required) - 1; i >= 0 && len(path) < n; i-- {
			lit := r.prog.required[i]
			if strings.IndexFunc(lit, func(c rune) bool { return c <= ' ' || c >= 0x7f || strings.ContainsRune("%?#", c) }) < 0 {
				path = append(append(path, '/'), lit...)
			}
		}
	}
	return path[:min(n, len(path))]
}
