package importer

import (
	"github.com/redirectd/redirectd/matcher"
)

// Rule is one translated rule. Rule.File and Rule.Line are the source's
// file and line; Text is the source as written, for the comment above
// the rule in the config.
type Rule struct {
	matcher.Rule
	Text string
}

// Result is what an import translated and what it noted.
type Result struct {
	Rules []Rule
	Notes []Note
}

// Report is the result's report, for the config written to written.
func (r *Result) Report(written string) *Report {
	forms := map[string]int{}
	for _, x := range r.Rules {
		forms[x.Kind.String()]++
	}
	return &Report{Files: []string{written}, Forms: forms, Notes: r.Notes}
}
