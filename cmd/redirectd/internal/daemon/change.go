package daemon

import (
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
)

// change is one change to the rules served, as a caller asked for it:
// a promote, a rollback, a pin, an unpin, a reload or a new version from
// the source. Every one goes through service.apply.
type change struct {
	action string // the audit record's action
	who    edit.Audit
	// c is the rule set to load (nil: the config again, with the
	// source's version serving); keep, instead, changes only the pin
	// and loads nothing.
	c    *candidate
	keep bool
	// version is the version of edits a promote or rollback makes.
	version *edit.Version
	// durable records the change's state where a restart reads it (the
	// commit record of edits_dir, the pinned or current version of
	// cache_dir); nil for none (a reload: its files are the state).
	durable func() error
}

// apply makes ch, through an edits.Commit: its rules loaded and
// checked (reloadLocked), then made durable and recorded in the order
// Commit keeps, then swapped in; an answer of success means the change
// survives a crash, and its audit record with it. s.mu is held.
func (s *service) apply(ch change) (string, error) {
	s.awaitVersion()
	defer s.ed.Unstage()
	cm := s.ed.Begin(edits.Change{Action: ch.action, Who: ch.who, Version: ch.version, Durable: ch.durable}, !ch.keep, s.log)
	if ch.keep {
		if err := cm.Durable(s.versions.ServingHash()); err != nil {
			return "", err
		}
		cm.Served()
		s.logChange(cm.Record)
		return "", nil
	}
	msg, err := s.reloadLocked(ch.c, func(ver edit.Version) error { return cm.Durable(ver.Hash) })
	if err != nil {
		cm.Failed()
		return "", err
	}
	cm.Served()
	s.logChange(cm.Record)
	return msg, nil
}

// logChange logs a change made, as its audit record says it; but for a
// reload, whose "reload" line (who asked) came at its start and whose
// "reloaded" line (the version) at its end (service.reload).
func (s *service) logChange(r edit.Record) {
	if r.Action == "reload" {
		return
	}
	args := []any{"hash", r.Hash, "author", r.Author, "message", r.Message}
	if r.Version > 0 {
		args = append(args, "version", r.Version, "base", r.Base)
	}
	if c := r.Counts; c != nil {
		args = append(args, "added", c.Added, "changed", c.Changed, "removed", c.Removed)
	}
	s.log.Info(r.Action, args...)
}
