package matcher

import "time"

// Near is a rule whose path matches a request that its conditions keep it
// from answering, with the conditions the request does not meet
// (Rule.Unmet).
type Near struct {
	Rule  Rule
	Unmet []string
}

// NearMisses returns the rules with conditions (query, when, a time
// window) that would answer host, path and query if the request req at
// now met them, each with what it does not meet: explain's answer to
// "why does the https-only rule not answer my http URL". Only the rules
// of the first path that matches are returned (those tried in turn for
// it; shadow rules never answer and are left out). It builds a rule set of
// the conditional rules on its first call, kept with s: for explain and
// test, not for traffic.
func (s *Set) NearMisses(host, path, query []byte, req Request, now time.Time) []Near {
	x := s.nearIndex()
	if x.bare == nil {
		return nil
	}
	var m Match
	if !x.bare.lookup(host, path, query, &m) {
		return nil
	}
	var out []Near
	for _, r := range x.groups[m.Rule().Line] {
		if un := r.Unmet(query, req, now); len(un) > 0 {
			out = append(out, Near{Rule: *r, Unmet: un})
		}
	}
	return out
}

// nearIndex is what NearMisses looks a request up in: the conditional
// rules of a Set, their conditions dropped, one for each path (rules
// that differ only in conditions share one), in file order; groups holds
// the rules behind each, found again by the bare rule's Line.
type nearIndex struct {
	bare   *Set
	groups [][]*Rule
}

// nearIndex builds s's nearIndex on the first call: a test run explains
// every failed case, and each would build it again.
func (s *Set) nearIndex() *nearIndex {
	s.nearOnce.Do(func() {
		b := NewBuilder(DefaultLimits)
		x := &nearIndex{}
		at := map[string]int{}
		for _, r := range s.rules {
			if !r.conditional() || r.Shadow {
				continue
			}
			bare := r.Rule
			bare.Query, bare.When, bare.Active = nil, nil, Window{}
			k := bare.Key()
			if i, ok := at[k]; ok {
				x.groups[i] = append(x.groups[i], &r.Rule)
				continue
			}
			bare.File, bare.Line = "near", len(x.groups)
			if b.Add(&bare) != nil {
				continue // cannot be: it was built once already
			}
			at[k] = len(x.groups)
			x.groups = append(x.groups, []*Rule{&r.Rule})
		}
		if len(x.groups) > 0 {
			x.bare, _ = b.Set()
		}
		s.near = x
	})
	return s.near
}
