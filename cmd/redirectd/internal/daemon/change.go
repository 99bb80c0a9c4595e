package daemon

import (
	"fmt"

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

// errNotDurable wraps the failure to keep a change on disk: the change
// is not acknowledged, and the rules served stay.
func errNotDurable(what string, err error) error {
	return fmt.Errorf("%w: cannot keep %s on disk, so it does not serve and the running rules stay: %v", edit.ErrNotDurable, what, err)
}

// apply makes ch: its rules loaded and checked, then, in this order, the
// version's file, the audit record, and the durable state (the commit)
// each written and synced, then the rules swapped in. A failure at any
// step leaves the rules served and the state on disk as they were (an
// audit record already written is followed by an abort record), so an
// answer of success means the change survives a crash, and its audit
// record with it. Recovery at start (recoverEdits) completes or rolls
// back what a crash interrupted. s.mu is held.
func (s *service) apply(ch change) (string, error) {
	defer s.ed.Unstage()
	var rec edit.Record
	// The version's file is written while its rules load (at a million
	// edits both take seconds, one mostly the disk's, the other the
	// CPU's); commit waits for it before anything names it, so the
	// order on disk is unchanged. A file left by a crash meanwhile is
	// one no commit record names, removed at start.
	var written func() error
	if v := ch.version; v != nil && !ch.keep {
		written = s.ed.Store().StartWrite(v)
	}
	commit := func(ver ruleVersion) error {
		edits.CrashPoint("loaded")
		rec = edits.Record(ch.action, ch.who, ch.version, ver.Hash)
		if v := ch.version; written != nil {
			// Its rules loaded: its number is not used again, even
			// should its file not be kept.
			s.ed.Store().Reserve(v.Number)
			if err := written(); err != nil {
				s.discard(ch)
				return errNotDurable(fmt.Sprintf("version %d in [admin] edits_dir", v.Number), err)
			}
		}
		if err := s.ed.AppendAudit(rec); err != nil {
			s.discard(ch)
			return errNotDurable("the audit record in [admin] audit_log", err)
		}
		if ch.durable == nil {
			edits.CrashPoint("committed")
			return nil
		}
		if err := ch.durable(); err != nil {
			s.discard(ch)
			abort := edit.Record{Time: edits.Now(), Action: "abort", Version: rec.Version, Hash: rec.Hash, Author: rec.Author,
				Message: fmt.Sprintf("the %s recorded above did not take effect: %v", ch.action, err)}
			if aerr := s.ed.AppendAudit(abort); aerr != nil {
				s.ed.HoldAbort(abort)
				s.log.Error("cannot append an abort record to [admin] audit_log; it is appended before the next record, or at the next start", "err", aerr)
			}
			return errNotDurable("the change", err)
		}
		edits.CrashPoint("committed")
		return nil
	}
	if ch.keep {
		if err := commit(ruleVersion{Version: edit.Version{Hash: s.versions.ServingHash()}}); err != nil {
			return "", err
		}
		edits.CrashPoint("swapped")
		s.logChange(rec)
		return "", nil
	}
	msg, err := s.reloadLocked(ch.c, commit)
	if err != nil {
		if written != nil {
			written() // then its file, not committed, is removed
			s.discard(ch)
		}
		return "", err
	}
	if v := ch.version; v != nil {
		s.ed.Served(v)
	}
	edits.CrashPoint("swapped")
	s.logChange(rec)
	return msg, nil
}

// logChange logs a change made, as its audit record says it.
func (s *service) logChange(r edit.Record) {
	args := []any{"hash", r.Hash, "author", r.Author, "message", r.Message}
	if r.Version > 0 {
		args = append(args, "version", r.Version, "base", r.Base)
	}
	if c := r.Counts; c != nil {
		args = append(args, "added", c.Added, "changed", c.Changed, "removed", c.Removed)
	}
	s.log.Info(r.Action, args...)
}

// discard removes the file of ch's version, written but not committed.
func (s *service) discard(ch change) {
	if ch.version != nil {
		s.ed.Store().Discard(ch.version.Number)
	}
}
