package console

import (
	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/internal/shorten"
)

// cut shortens s for a message on a page.
func cut(s string) string { return shorten.Text(s, 80) }

// lastAnswered is when a rule last answered, "" when the Backend does not
// say.
func lastAnswered(*admin.RuleInfo) string { return "" }
