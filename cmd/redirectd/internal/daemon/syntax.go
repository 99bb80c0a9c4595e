package daemon

import (
	"errors"
	"io"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/matcher"
)

// configSyntax is edit.Syntax by the config package: an entry is
// checked, and an upload's CSV read, as a config's rule is.
type configSyntax struct{}

func (configSyntax) RuleHost(h string) (string, error) { return config.RuleHost(h) }

func (configSyntax) Writable(r *matcher.Rule) error { return importer.Writable(r) }

func (configSyntax) ReadCSV(r io.Reader, fn func(line int, rules []matcher.Rule) error) error {
	err := config.StreamCSV("upload", r, fn)
	var ce *config.Error
	if errors.As(err, &ce) {
		return &edits.LineError{Line: ce.Line, Err: errors.New(ce.Msg)}
	}
	return err
}
