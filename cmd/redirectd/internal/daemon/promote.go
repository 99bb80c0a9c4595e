package daemon

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
)

// Promote makes draft id the next version: its edits merged over the
// serving version's, loaded through the reload path (the config read
// again, the rules compiled and checked whole), stored in edits_dir
// before it serves, recorded in the audit log.
func (s *service) Promote(id string, a edit.Audit, in edit.Scope) (int, error) {
	ed := s.ed
	if err := ed.refuse(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ed.mu.Lock()
	d, err := ed.getDraft(id)
	if err == nil && d.info.Base != ed.cur.Number {
		err = baseChanged(d.info.Base, ed.cur.Number)
	}
	if err == nil {
		err = allIn(d.ov, in)
	}
	var v *edits.Version
	if err == nil {
		next := ed.store.Next()
		ov := ed.ov.MergeStamped(d.ov, next)
		v = &edits.Version{Number: next, Base: ed.cur.Number, Author: a.Author, Message: a.Message, Time: now(),
			Counts: draftCounts(d.ov), Edits: ov.Edits()}
		ed.staged = stagedVersion{v, ov}
	}
	ed.mu.Unlock()
	if err != nil {
		return 0, err
	}
	err = s.serveEdits(v, "promote")
	if err == nil {
		ed.mu.Lock()
		delete(ed.drafts, id)
		ed.mu.Unlock()
	}
	freeLoadGarbage() // what the load left, and the draft: see reloadLocked
	if err != nil {
		return 0, err
	}
	return v.Number, nil
}

// draftCounts counts a draft's entries by op (an add of a rule that
// exists was made a change when it was entered).
func draftCounts(ov *edits.Overlay) edit.Counts {
	var c edit.Counts
	for _, e := range ov.Edits() {
		switch e.Op {
		case edits.OpAdd:
			c.Added++
		case edits.OpChange:
			c.Changed++
		default:
			c.Removed++
		}
	}
	return c
}

// serveEdits makes v, a promote or a rollback on an edited node, the
// version serving, through apply: a v that does not load is ErrInvalid,
// one that cannot be kept ErrNotDurable, and the running rules stay.
// s.mu is held.
func (s *service) serveEdits(v *edits.Version, action string) error {
	ed := s.ed
	_, err := s.apply(change{action: action, who: edit.Audit{Author: v.Author, Message: v.Message}, c: &candidate{edits: v}, version: v,
		durable: func() error { return ed.store.Commit(v.Number) }})
	if err != nil && !errors.Is(err, edit.ErrNotDurable) {
		return fmt.Errorf("%w; the running rules stay: %v", edit.ErrInvalid, err)
	}
	return err
}

// rollbackEdits serves again the edits of version to (a number, or the
// hash /versions lists) as a new version, so numbers only grow and the
// audit trail reads in order. s.mu is held.
func (s *service) rollbackEdits(to string, a edit.Audit) (string, error) {
	ed := s.ed
	n, err := strconv.Atoi(to)
	if err != nil {
		rv, ferr := s.versions.find(to)
		if ferr != nil {
			return "", ferr
		}
		n = rv.Number
	}
	if a.Message == "" {
		return "", errNoMessage
	}
	old, err := ed.store.Load(n)
	if err != nil {
		return "", fmt.Errorf("version %d: %w", n, edit.ErrUnknownVersion)
	}
	ed.mu.Lock()
	cur := ed.ov
	base := ed.cur.Number
	ed.mu.Unlock()
	next := ed.store.Next()
	target := edits.FromEdits(old.Edits)
	v := &edits.Version{Number: next, Base: base, Author: a.Author, Message: a.Message, Time: now(), RollbackOf: n,
		Counts: overlayCounts(cur, target), Edits: old.Edits}
	ed.mu.Lock()
	ed.staged = stagedVersion{v, target}
	ed.mu.Unlock()
	err = s.serveEdits(v, "rollback")
	freeLoadGarbage() // see reloadLocked
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("serving version %d, the rules of version %d", v.Number, n), nil
}

// overlayCounts counts the keys whose edit differs from cur to target:
// one target deletes is removed, one only cur deleted or only target
// adds is added (back), any other difference a change.
func overlayCounts(cur, target *edits.Overlay) edit.Counts {
	var c edit.Counts
	seen := map[string]bool{}
	for _, e := range target.Edits() {
		k := e.Key()
		seen[k] = true
		p, ok := cur.Get(k)
		switch {
		case ok && p.Entry.Equal(&e.Entry):
		case e.Op == edits.OpDelete:
			c.Removed++
		case ok && p.Op == edits.OpDelete, !ok && e.Op == edits.OpAdd:
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
		case edits.OpDelete:
			c.Added++
		case edits.OpAdd:
			c.Removed++
		default:
			c.Changed++
		}
	}
	return c
}
