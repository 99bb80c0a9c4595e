package edits

import (
	"fmt"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// StagePromote makes draft id the next version: its edits merged over
// the serving version's, of in's hosts only, recorded as a's. The
// version is staged, its edits indexed, for the daemon to load, keep
// and serve (Served), or not (Unstage); Promoted then drops the draft.
// The daemon's lock on changes to the rules served is held.
func (ed *State) StagePromote(id string, a edit.Audit, in edit.Scope) (*edit.Version, error) {
	if err := ed.refuse(); err != nil {
		return nil, err
	}
	d, err := ed.lockDraft(id)
	if err != nil {
		return nil, err
	}
	defer ed.mu.Unlock()
	if d.info.Base != ed.cur.Number {
		return nil, baseChanged(d.info.Base, ed.cur.Number)
	}
	if err := allIn(d.ov, in); err != nil {
		return nil, err
	}
	next := ed.store.Next()
	ov := ed.ov.MergeStamped(d.ov, next)
	v := &edit.Version{Number: next, Base: ed.cur.Number, Author: a.Author, Message: a.Message, Time: now(),
		Counts: draftCounts(d.ov), Edits: ov.Edits()}
	ed.staged = stagedVersion{v, ov}
	return v, nil
}

// Promoted drops draft id, whose version now serves.
func (ed *State) Promoted(id string) {
	ed.mu.Lock()
	delete(ed.drafts, id)
	ed.mu.Unlock()
}

// draftCounts counts a draft's entries by op (an add of a rule that
// exists was made a change when it was entered).
func draftCounts(ov *Overlay) *edit.Counts {
	c := &edit.Counts{}
	for _, e := range ov.Edits() {
		switch e.Op {
		case edit.OpAdd:
			c.Added++
		case edit.OpChange:
			c.Changed++
		default:
			c.Removed++
		}
	}
	return c
}

// StageRollback makes the next version one that serves again the edits
// of version n, so numbers only grow and the audit trail reads in
// order; staged as StagePromote's. The daemon's lock on changes to the
// rules served is held.
func (ed *State) StageRollback(n int, a edit.Audit) (*edit.Version, error) {
	if a.Message == "" {
		return nil, errNoMessage
	}
	old, err := ed.store.Load(n)
	if err != nil {
		return nil, fmt.Errorf("version %d: %w", n, edit.ErrUnknownVersion)
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	next := ed.store.Next()
	target := restored(ed.ov, old.Edits, next)
	v := &edit.Version{Number: next, Base: ed.cur.Number, Author: a.Author, Message: a.Message, Time: now(), Rollback: true, RollbackOf: n,
		Counts: overlayCounts(ed.ov, target), Edits: target.Edits()}
	ed.staged = stagedVersion{v, target}
	return v, nil
}

// restored returns the edits of list, the version rolled back to, as
// version n serves them again: each stamped Restored by n unless cur,
// the serving edits, holds it as it is (the same entry from the same
// promote), whose stamp it keeps. A rule's origin is then its editor's
// as of the version served, and who brought it back.
//
// A rule cur changes or deletes that list does not edit is the config's
// again: it gets an OpConfig edit stamped by n (one cur already marks
// so keeps its stamp), so that it too names the rollback; a rule cur
// adds goes, and has nothing to name.
func restored(cur *Overlay, list []edit.Edit, n int) *Overlay {
	out := FromEdits(list)
	for i := range out.list {
		e := &out.list[i]
		if p, ok := cur.Get(e.Key()); ok && p.Version == e.Version && p.Entry.Equal(&e.Entry) {
			e.Restored = p.Restored
		} else {
			e.Restored = n
		}
	}
	for _, p := range cur.Edits() {
		if _, ok := out.Get(p.Key()); ok || p.Op == edit.OpAdd {
			continue
		}
		if p.Op == edit.OpConfig {
			out.Put(p)
			continue
		}
		out.Put(edit.Edit{Entry: edit.Entry{Op: edit.OpConfig, Host: p.Host, From: p.From, Query: p.Query, When: p.When}, Restored: n})
	}
	return out
}

// overlayCounts counts the keys whose edit differs from cur to target:
// one target deletes is removed, one only cur deleted or only target
// adds is added (back), any other difference a change.
func overlayCounts(cur, target *Overlay) *edit.Counts {
	c := &edit.Counts{}
	seen := map[string]bool{}
	for _, e := range target.Edits() {
		k := e.Key()
		seen[k] = true
		p, ok := cur.Get(k)
		switch {
		case ok && p.Entry.Equal(&e.Entry):
		case e.Op == edit.OpConfig:
			// The config's rule again: counted by what cur did to it.
			switch {
			case !ok || p.Op == edit.OpConfig:
			case p.Op == edit.OpDelete:
				c.Added++
			case p.Op == edit.OpAdd:
				c.Removed++
			default:
				c.Changed++
			}
		case e.Op == edit.OpDelete:
			c.Removed++
		case ok && p.Op == edit.OpDelete, !ok && e.Op == edit.OpAdd:
			c.Added++ // back, or an add cur lacks (a rollback past a rollback)
		default:
			c.Changed++
		}
	}
	for _, e := range cur.Edits() {
		if seen[e.Key()] {
			continue
		}
		switch e.Op {
		case edit.OpConfig:
		case edit.OpDelete:
			c.Added++
		case edit.OpAdd:
			c.Removed++
		default:
			c.Changed++
		}
	}
	return c
}
