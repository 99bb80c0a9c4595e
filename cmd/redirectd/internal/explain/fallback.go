package explain

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// explainFallback says when the fallback rule m matched answers: only
// where the upstream answers one of its statuses.
func explainFallback(w io.Writer, m *matcher.Match) {
	fb := m.Fallback()
	if fb == nil {
		return
	}
	var list []string
	for _, s := range fb.Statuses() {
		list = append(list, strconv.Itoa(s))
	}
	fmt.Fprintf(w, "fallback: the request is forwarded to the upstream first; this answer is sent only if it answers %s, "+
		"else the upstream's answer is (without an [upstream], always this answer)\n", strings.Join(list, " or "))
}
