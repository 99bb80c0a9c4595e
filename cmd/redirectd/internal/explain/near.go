package explain

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/redirectd/redirectd/matcher"
)

// explainNear writes the rules whose path matches the request but whose
// conditions it does not meet (matcher's Set.NearMisses), and which: an
// https-only rule asked about with an http URL says so rather than
// leaving a bare "no rule matches". With answered (the rule that
// answered), only the rules of its path are written: those tried before
// it.
func explainNear(w io.Writer, set *matcher.Set, answered *matcher.Rule, host, path string, query []byte, req matcher.Request, now time.Time, name func(*matcher.Rule) string) {
	for _, n := range Near(set, host, path, query, req, now) {
		if answered != nil && (n.Rule.Kind != answered.Kind || n.Rule.From != answered.From || n.Rule.Host != answered.Host) {
			continue
		}
		fmt.Fprintf(w, "near:     %s\n", nearText(&n, name))
	}
}

// Near returns the rules of set whose path matches the request but whose
// conditions it does not meet, with which (matcher's Set.NearMisses).
func Near(set *matcher.Set, host, path string, query []byte, req matcher.Request, now time.Time) []matcher.Near {
	return set.NearMisses([]byte(host), []byte(path), query, req, now)
}

// NearText writes one near miss: `redirectd.toml:12 (exact "/a", scheme
// = https) matches this path but requires scheme = https; this URL is
// http`.
func NearText(n *matcher.Near) string { return nearText(n, nil) }

func nearText(n *matcher.Near, name func(*matcher.Rule) string) string {
	return ruleText(&n.Rule, name) + " matches this path but " + strings.Join(n.Unmet, ", and ")
}
