package console

import (
	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/internal/shorten"
)

// cut shortens s for a message on a page.
func cut(s string) string { return shorten.Text(s, 80) }

// lastAnswered is when a rule last answered, "never" when it has not
// since start.
func lastAnswered(ri *admin.RuleInfo) string {
	if ri.LastAnswered == "" {
		return "never"
	}
	return ri.LastAnswered
}

// changed is who last changed ri through a draft, when and why (the
// promote's message, shortened), and the rollback that brought it back
// if one did; "" for a rule as the config writes it.
func changed(ri *admin.RuleInfo) string {
	if ri.RuleChange == nil {
		return ""
	}
	var who string
	switch {
	case ri.ChangedBy != "" && ri.Added != "":
		who = ri.ChangedBy + ", " + ri.Added
	case ri.ChangedBy != "":
		who = ri.ChangedBy
	default:
		who = ri.Added
	}
	if ri.Message != "" && who != "" {
		who += ": " + shorten.Text(ri.Message, 80)
	}
	if ri.Restored != "" {
		if who == "" {
			who = "config" // a rollback made it the config's rule again
		}
		who += "; restored in " + ri.Restored
	}
	return who
}
