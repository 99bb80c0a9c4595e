package lint

import "fmt"

// fallbackLoop is the finding for a redirect loop made only of fallback
// rules (matcher.Rule.Fallback). Each of them answers only where the
// upstream answers one of its fallback_status, so the loop is served only
// where the upstream has none of its pages: a site imported from Netlify
// has such loops between rules over pages that exist, which Netlify never
// serves. It is a warning, not an error; without an [upstream] fallback
// rules answer as plain rules do, and the loop is served.
func fallbackLoop(chain []RuleRef) Finding {
	return Finding{Severity: Warning, Kind: "loop", Rules: chain,
		Message: fmt.Sprintf("redirect loop of fallback rules: %s; it is served only where the upstream has none of these pages "+
			"(it answers one of their fallback_status), and always without an [upstream]", describe(chain))}
}

// loopOfFallbacks reports whether the loop that chain ends in (its last
// rule is met for the second time) is made only of fallback rules; the
// rules that lead into the loop do not count, since a request that
// follows them ends in the same loop.
func loopOfFallbacks(chain []RuleRef, fallback []bool) bool {
	last := chain[len(chain)-1]
	for i := len(chain) - 2; i >= 0; i-- {
		if !fallback[i+1] {
			return false
		}
		if chain[i].Source == last.Source && chain[i].Host == last.Host {
			return true
		}
	}
	return false
}
