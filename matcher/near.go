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
// the conditional rules on every call: for explain and test, not for
// traffic.
func (s *Set) NearMisses(host, path, query []byte, req Request, now time.Time) []Near {
	// The conditional rules, their conditions dropped, one for each
	// path (rules that differ only in conditions share one), in file
	// order; groups holds the rules behind each, found again by Line.
	b := NewBuilder(DefaultLimits)
	var groups [][]*Rule
	at := map[string]int{}
	for _, r := range s.rules {
		if !r.conditional() || r.Shadow {
			continue
		}
		bare := r.Rule
		bare.Query, bare.When, bare.Active = nil, nil, Window{}
		k := bare.Key()
		if i, ok := at[k]; ok {
			groups[i] = append(groups[i], &r.Rule)
			continue
		}
		bare.File, bare.Line = "near", len(groups)
		if b.Add(&bare) != nil {
			continue // cannot be: it was built once already
		}
		at[k] = len(groups)
		groups = append(groups, []*Rule{&r.Rule})
	}
	if len(groups) == 0 {
		return nil
	}
	bare, err := b.Set()
	if err != nil {
		return nil
	}
	var m Match
	if !bare.lookup(host, path, query, &m) {
		return nil
	}
	var out []Near
	for _, r := range groups[m.Rule().Line] {
		if un := r.Unmet(query, req, now); len(un) > 0 {
			out = append(out, Near{Rule: *r, Unmet: un})
		}
	}
	return out
}
