package explain

import (
	"fmt"
	"io"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// explainHeaders writes the configured header fields the answer m decides
// carries: the rule's own (merged with [server] headers), else the
// server's.
func explainHeaders(w io.Writer, m *matcher.Match, set *matcher.Set) {
	h := m.Headers()
	if h == "" {
		h = set.Headers()
	}
	for _, line := range strings.Split(strings.TrimSuffix(h, "\r\n"), "\r\n") {
		if line != "" {
			fmt.Fprintf(w, "header:   %s\n", line)
		}
	}
}
