package ruleset

import (
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// TOML writes rules as a config holds them: only the config package
// knows its format (config/importer's writer, the inverse of its
// loader), and engine packages do not import it, so the daemon gives it.
type TOML interface {
	// Writable says why r has no form in a TOML config, nil when it
	// has one.
	Writable(r *matcher.Rule) error
	// WriteHeader writes text as the file's opening comment lines.
	WriteHeader(b *strings.Builder, text string)
	// WriteComment writes text as one comment line.
	WriteComment(b *strings.Builder, text string)
	// WriteRule writes r as a [[rule]] table under the comment.
	WriteRule(b *strings.Builder, comment string, r matcher.Rule)
}
