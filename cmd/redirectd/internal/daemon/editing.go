package daemon

import (
	"cmp"
	"io"
	"log/slog"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
	"github.com/redirectd/redirectd/internal/hostmap"
)

// The daemon's side of the editing path: edits.State edits, and the
// daemon opens its files from the config, loads, keeps and swaps in
// the versions it stages (through apply, change.go), and tells it what
// serves.

// openEdits opens cfg's [admin] audit_log and edits_dir (edits.Open).
func openEdits(cfg *config.Config, log *slog.Logger) (*edits.State, error) {
	return edits.Open(editOptions(cfg), log)
}

// editOptions are cfg's settings of the editing path.
func editOptions(cfg *config.Config) edits.Options {
	return edits.Options{AuditLog: cfg.Admin.AuditLog, Dir: cfg.Admin.EditsDir, Source: cfg.Reload.Source,
		Keep:      cmp.Or(cfg.Reload.KeepVersions, config.DefaultKeepVersions),
		MaxDrafts: cmp.Or(cfg.Admin.MaxDrafts, config.DefaultMaxDrafts), MaxEntries: cmp.Or(cfg.Admin.MaxDraftEntries, config.DefaultMaxDraftEntries),
		Syntax: configSyntax{}}
}

// applyEdits lays the edits of v (the serving version's when nil) over
// cfg's rules, replacing cfg.Set.
func applyEdits(ed *edits.State, cfg *config.Config, v *edit.Version, log *slog.Logger) error {
	set, err := ed.Apply(cfg.Set, v, cfg.Reload.Limits(), cfg.Path, log)
	if err != nil {
		return err
	}
	cfg.Set = set
	return nil
}

// missAnswer is the answer to a URL no rule takes, for a draft's
// samples: an owner reading the samples of a site behind redirectd must
// not think a page the upstream serves turns into a 404.
func (s *service) missAnswer(host, path string) string {
	if s.srv != nil && s.srv.Forwards(hostmap.Example(host), path) {
		return "forwarded"
	}
	return "404"
}

// The edit.Editor methods: the drafts are edits.State's; a promote is
// staged there and served here.

func (s *service) NewDraft(author string) (edit.Draft, error) { return s.ed.NewDraft(author) }
func (s *service) Drafts(in edit.Scope) []edit.Draft          { return s.ed.Drafts(in) }
func (s *service) DiscardDraft(id string, in edit.Scope) error {
	return s.ed.DiscardDraft(id, in)
}
func (s *service) AddEntry(id, author string, e edit.Entry, in edit.Scope) error {
	return s.ed.AddEntry(id, author, e, in)
}
func (s *service) Upload(id, author, contentType string, body io.Reader, in edit.Scope) (int, error) {
	return s.ed.Upload(id, author, contentType, body, in)
}
func (s *service) Draft(id string, in edit.Scope, limit, offset int) (*edit.DraftView, error) {
	return s.ed.Draft(id, in, limit, offset)
}

// Promote makes draft id the next version: staged by edits.State, loaded
// through the reload path (the config read again, the rules compiled and
// checked whole), stored in edits_dir before it serves, recorded in the
// audit log.
func (s *service) Promote(id string, a edit.Audit, in edit.Scope) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	serve, loaded := s.serveEdits()
	n, err := s.ed.Promote(id, a, in, serve)
	if *loaded {
		freeLoadGarbage() // what the load left, and the draft: see reloadLocked
	}
	return n, err
}

// serveEdits returns the edits.Serve of an edited node, which makes a
// promote's or rollback's version the version serving through apply
// (its error edits.ServeFailed's), and whether it loaded one, after
// which the caller hands the load's garbage back. s.mu is held.
func (s *service) serveEdits() (edits.Serve, *bool) {
	loaded := new(bool)
	return func(v *edit.Version, action string) error {
		*loaded = true
		st := s.ed.Store()
		_, err := s.apply(change{action: action, who: edit.Audit{Author: v.Author, Message: v.Message}, c: &candidate{edits: v}, version: v,
			durable: func() error { return st.Commit(v.Number) }})
		return edits.ServeFailed(err)
	}, loaded
}
