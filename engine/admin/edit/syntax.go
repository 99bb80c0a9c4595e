package edit

import (
	"io"

	"github.com/redirectd/redirectd/matcher"
)

// Syntax is what an entry is checked against that only the config
// package knows: the daemon gives it, since engine packages do not
// import config (their rules come to them in the matcher's types).
type Syntax interface {
	// RuleHost returns a rule's host as the config keeps it (lower
	// case, punycode), or says what is wrong with it.
	RuleHost(h string) (string, error)
	// Writable says why r has no form in a TOML config (bytes that are
	// not UTF-8), nil when it has one: what an edit makes, GET
	// /ruleset writes for a fleet to load back.
	Writable(r *matcher.Rule) error
	// ReadCSV streams the rows of an upload's CSV as `redirectd import
	// csv` reads them, each row's rules to fn; a bad row is a
	// *LineError naming its line.
	ReadCSV(r io.Reader, fn func(line int, rules []matcher.Rule) error) error
}
