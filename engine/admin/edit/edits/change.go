package edits

import (
	"fmt"
	"log/slog"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// Change is one change to the rules served, as a caller asked for it: a
// promote, a rollback, a pin, an unpin, a reload or a new version from
// the source. The daemon loads its rules; a Commit makes it durable and
// records it, in one order for every change.
type Change struct {
	Action string // the audit record's action
	Who    edit.Audit
	// Version is the version of edits a promote or rollback makes, nil
	// for the others.
	Version *edit.Version
	// Durable records the change's state where a restart reads it (the
	// commit record of edits_dir, the pinned or current version of the
	// source's cache); nil for none (a reload: its files are the state).
	Durable func() error
}

// Commit is a Change under way. The order on disk is the write-ahead
// order that recovery at start (recoverEdits) completes or rolls back:
// the version's file, then the audit record, then the durable state,
// each written and synced, and only then the rules swapped in. A
// failure at any step leaves the rules served and the state on disk as
// they were (an audit record already written is followed by an abort
// record), so a change acknowledged survives a crash, and its audit
// record with it.
type Commit struct {
	ed  *State
	ch  Change
	log *slog.Logger
	// written waits for the version's file, written while the rules
	// load; nil for a change without one.
	written func() error
	// Record is the change's audit record, once Durable has made it.
	Record edit.Record
}

// Begin starts ch. When its rules load (load), the version's file is
// written meanwhile (at a million edits both take seconds, one mostly
// the disk's, the other the CPU's); Durable waits for it before
// anything names it, so the order on disk is unchanged, and a file left
// by a crash meanwhile is one no commit record names, removed at start.
// The daemon's lock on changes is held until the Commit ends (Served or
// Failed).
func (ed *State) Begin(ch Change, load bool, log *slog.Logger) *Commit {
	c := &Commit{ed: ed, ch: ch, log: log}
	if ch.Version != nil && load {
		c.written = ed.store.StartWrite(ch.Version)
	}
	return c
}

// Durable makes the change durable once its rules are loaded and
// checked, to serve as the version of hash: an error is
// edit.ErrNotDurable, and the rules must not be swapped in.
func (c *Commit) Durable(hash string) error {
	ed, ch := c.ed, c.ch
	CrashPoint("loaded")
	c.Record = Record(ch.Action, ch.Who, ch.Version, hash)
	rec := &c.Record
	if v := ch.Version; c.written != nil {
		// Its rules loaded: its number is not used again, even should
		// its file not be kept.
		ed.store.Reserve(v.Number)
		if err := c.written(); err != nil {
			c.discard()
			return errNotDurable(fmt.Sprintf("version %d in [admin] edits_dir", v.Number), err)
		}
	}
	if err := ed.AppendAudit(*rec); err != nil {
		c.discard()
		return errNotDurable("the audit record in [admin] audit_log", err)
	}
	if ch.Durable != nil {
		if err := ch.Durable(); err != nil {
			c.discard()
			abort := edit.Record{Time: now(), Action: "abort", Version: rec.Version, Hash: rec.Hash, Author: rec.Author,
				Message: fmt.Sprintf("the %s recorded above did not take effect: %v", ch.Action, err)}
			if aerr := ed.AppendAudit(abort); aerr != nil {
				ed.HoldAbort(abort)
				c.log.Error("cannot append an abort record to [admin] audit_log; it is appended before the next record, or at the next start", "err", aerr)
			}
			return errNotDurable("the change", err)
		}
	}
	CrashPoint("committed")
	return nil
}

// Served ends a change whose rules now serve.
func (c *Commit) Served() {
	if v := c.ch.Version; v != nil {
		c.ed.Served(v)
	}
	CrashPoint("swapped")
}

// Failed ends a change whose rules did not load or serve: the version's
// file, written or being written, is removed.
func (c *Commit) Failed() {
	if c.written != nil {
		c.written() // then its file, not committed, is removed
		c.discard()
	}
}

// discard removes the file of the change's version, written but not
// committed.
func (c *Commit) discard() {
	if v := c.ch.Version; v != nil {
		c.ed.store.Discard(v.Number)
	}
}

// errNotDurable wraps the failure to keep a change on disk: the change
// is not acknowledged, and the rules served stay.
func errNotDurable(what string, err error) error {
	return fmt.Errorf("%w: cannot keep %s on disk, so it does not serve and the running rules stay: %v", edit.ErrNotDurable, what, err)
}
