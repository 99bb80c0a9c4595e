package nginx

import (
	"slices"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// Report is what `import nginx` prints for the files written: paths
// relative to dir when they lie in it (dir "" keeps them as they are).
func (r *Result) Report(written []string, dir string) *importer.Report {
	return &importer.Report{Files: written, Dir: dir, Forms: r.Counts(), Unit: "table", Notes: r.Notes}
}

// notDeciding are the beginnings of the notes on directives that left
// out change how a request is forwarded or what an answer carries, not
// whether it is redirected or forwarded nor where.
var notDeciding = []string{"proxy_set_header ", "proxy_", "add_header ", "upstream ", "listen ", "server_name ", "a server needs both ssl_certificate"}

// Blocking counts the notes of what decides a redirect or a forward and
// is left out (not a map or set variable only logging or headers read), and of answers the self-check found different: what
// makes the import exit 1, the files still written.
func (r *Result) Blocking() int {
	n := 0
	for _, x := range r.Notes {
		switch {
		case x.Kind == importer.Differs:
			n++
		case x.Kind == importer.LeftOut && !r.aside[x] && !slices.ContainsFunc(notDeciding, func(p string) bool { return strings.HasPrefix(x.Msg, p) }):
			n++
		}
	}
	return n
}
