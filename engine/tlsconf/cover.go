package tlsconf

// HostCover is what a rule set tells of a host: whether a rule names it
// itself, and whether a wildcard host rule covers it (matcher.Set's
// NamesHost and CoversWildcard, which answer false on a nil set).
type HostCover interface {
	NamesHost(host string) bool
	CoversWildcard(host string) bool
}

// RulesCover is the DecisionFunc of the rule set rules returns now (an
// atomic load, so that a reload or a new version at a rule source changes
// the answer for the next handshake). Only names the rules name by host
// (exact, or under a wildcard host) are covered: host-less rules answer
// for any name, and would leave only the rate limit between a scanner
// and the CA's limits.
func RulesCover(rules func() HostCover) DecisionFunc {
	return func(host string) Cover {
		switch set := rules(); {
		case set.NamesHost(host):
			return CoveredExactly
		case set.CoversWildcard(host):
			return CoveredByWildcard
		}
		return NotCovered
	}
}
