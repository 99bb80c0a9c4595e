package explain

import (
	"fmt"
	"io"

	"github.com/redirectd/redirectd/matcher"
)

// explainShadow adds to explain's answer the shadow rule that would have
// answered, when one would.
func explainShadow(w io.Writer, m *matcher.Match, query []byte, name func(*matcher.Rule) string) {
	r := m.ShadowRule()
	if r == nil {
		return
	}
	fmt.Fprintf(w, "shadow:   %s would answer %d %s; in shadow mode it is only counted and logged\n",
		ruleText(r, name), r.Status, m.AppendShadowLocation(nil, query))
}
