package daemon

import (
	"errors"
	"io"
	"strings"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/matcher"
)

// configSyntax is edit.Syntax and ruleset.TOML by the config package:
// an entry is checked, and an upload's CSV read, as a config's rule is,
// and GET /ruleset's rules are written by the one writer of configs.
type configSyntax struct{}

func (configSyntax) RuleHost(h string) (string, error) { return config.RuleHost(h) }

func (configSyntax) Writable(r *matcher.Rule) error { return importer.Writable(r) }

func (configSyntax) WriteHeader(b *strings.Builder, text string)  { importer.WriteHeader(b, text) }
func (configSyntax) WriteComment(b *strings.Builder, text string) { importer.WriteComment(b, text) }
func (configSyntax) WriteRule(b *strings.Builder, comment string, r matcher.Rule) {
	importer.WriteRule(b, comment, r, nil)
}

func (configSyntax) ReadCSV(r io.Reader, fn func(line int, rules []matcher.Rule) error) error {
	err := config.StreamCSV("upload", r, fn)
	var ce *config.Error
	if errors.As(err, &ce) {
		return &edits.LineError{Line: ce.Line, Err: errors.New(ce.Msg)}
	}
	return err
}
