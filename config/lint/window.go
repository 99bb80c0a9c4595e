package lint

import (
	"fmt"
	"time"

	"github.com/redirectd/redirectd/matcher"
)

// windows warns of rules whose time window ended by now: they will never
// answer again and can be removed. (A window whose from is not before its
// until is an error of the config, reported when it is loaded.)
func windows(rules []matcher.Rule, now time.Time) []Finding {
	var out []Finding
	for i := range rules {
		r := &rules[i]
		if !r.Active.Over(now) {
			continue
		}
		out = append(out, Finding{Severity: Warning, Kind: "window",
			Message: fmt.Sprintf("the rule's window ended at %s; it no longer answers and can be removed",
				r.Active.Until.UTC().Format(time.RFC3339)),
			Rules: []RuleRef{ref(r)}})
	}
	return out
}

// gated reports whether r answers only inside a window or never (shadow),
// so that it cannot make a later rule unreachable.
func gated(r *matcher.Rule) bool { return !r.Active.IsZero() || r.Shadow }
