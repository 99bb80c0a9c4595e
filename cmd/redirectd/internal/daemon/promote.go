package daemon

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/edits"
	"github.com/redirectd/redirectd/engine/admin"
)

// Promote makes draft id the next version: its edits merged over the
// serving version's, loaded through the reload path (the config read
// again, the rules compiled and checked whole), stored in edits_dir
// before it serves, recorded in the audit log.
func (s *service) Promote(id string, a admin.Audit, in admin.Scope) (int, error) {
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
		v = &edits.Version{Number: ed.store.Next(), Base: ed.cur.Number, Author: a.Author, Message: a.Message, Time: now(),
			Counts: draftCounts(d.ov), Edits: ed.ov.Merge(d.ov).Edits()}
	}
	ed.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if err := s.serveEdits(v); err != nil {
		return 0, err
	}
	ed.mu.Lock()
	delete(ed.drafts, id)
	ed.mu.Unlock()
	return v.Number, nil
}

// draftCounts counts a draft's entries by op (an add of a rule that
// exists was made a change when it was entered).
func draftCounts(ov *edits.Overlay) edits.Counts {
	var c edits.Counts
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

// serveEdits stores v, loads it through the reload path, and makes it
// the version serving; a v that does not load is ErrInvalid, and the
// running rules stay. s.mu is held.
func (s *service) serveEdits(v *edits.Version) error {
	ed := s.ed
	if err := ed.store.Write(v); err != nil {
		return fmt.Errorf("%w: cannot keep the version in [admin] edits_dir, so it does not serve: %v", admin.ErrEditRefused, err)
	}
	if _, err := s.reloadLocked(&candidate{edits: v}); err != nil {
		os.Remove(filepath.Join(ed.store.Dir(), "versions", strconv.Itoa(v.Number)+".json"))
		return fmt.Errorf("%w; the running rules stay: %v", admin.ErrInvalid, err)
	}
	if err := ed.store.SetCurrent(v.Number); err != nil {
		s.log.Error("cannot record the version serving in [admin] edits_dir; a restart serves the one before", "version", v.Number, "err", err)
	}
	ed.mu.Lock()
	ed.cur, ed.ov = v, edits.FromEdits(v.Edits)
	ed.mu.Unlock()
	action := "promote"
	if v.RollbackOf > 0 {
		action = "rollback"
	}
	s.log.Info(action, "version", v.Number, "base", v.Base, "author", v.Author, "message", v.Message,
		"added", v.Counts.Added, "changed", v.Counts.Changed, "removed", v.Counts.Removed)
	if err := ed.appendAudit(action, v); err != nil {
		s.log.Error("cannot append to [admin] audit_log", "path", ed.audit, "err", err)
	}
	return nil
}

// auditLine is one line of the audit log.
type auditLine struct {
	Time       time.Time     `json:"time"`
	Action     string        `json:"action"` // promote, rollback
	Version    int           `json:"version,omitempty"`
	Hash       string        `json:"hash,omitempty"` // a rollback of [rules] source's versions
	Base       int           `json:"base"`
	RollbackOf int           `json:"rollback_of,omitempty"`
	Author     string        `json:"author"`
	Message    string        `json:"message"`
	Counts     *edits.Counts `json:"counts,omitempty"`
}

// appendAudit appends v as a JSON line to the audit log, synced.
func (ed *editState) appendAudit(action string, v *edits.Version) error {
	return ed.appendAuditLine(auditLine{Time: v.Time, Action: action, Version: v.Number, Base: v.Base, RollbackOf: v.RollbackOf,
		Author: v.Author, Message: v.Message, Counts: &v.Counts})
}

// appendAuditLine appends l to the audit log, synced; nothing without
// one.
func (ed *editState) appendAuditLine(l auditLine) error {
	if ed.audit == "" {
		return nil
	}
	b, _ := json.Marshal(l)
	if err := os.MkdirAll(filepath.Dir(ed.audit), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(ed.audit, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// rollbackEdits serves again the edits of version to (a number, or the
// hash /versions lists) as a new version, so numbers only grow and the
// audit trail reads in order. s.mu is held.
func (s *service) rollbackEdits(to string, a admin.Audit) (string, error) {
	ed := s.ed
	n, err := strconv.Atoi(to)
	if err != nil {
		rv, ferr := s.versions.find(to)
		if ferr != nil {
			return "", ferr
		}
		n = rv.number
	}
	if a.Message == "" {
		return "", errNoMessage
	}
	old, err := ed.store.Load(n)
	if err != nil {
		return "", fmt.Errorf("version %d: %w", n, admin.ErrUnknownVersion)
	}
	ed.mu.Lock()
	cur := ed.ov
	base := ed.cur.Number
	next := ed.store.Next()
	ed.mu.Unlock()
	target := edits.FromEdits(old.Edits)
	v := &edits.Version{Number: next, Base: base, Author: a.Author, Message: a.Message, Time: now(), RollbackOf: n,
		Counts: overlayCounts(cur, target), Edits: old.Edits}
	if err := s.serveEdits(v); err != nil {
		return "", err
	}
	return fmt.Sprintf("serving version %d, the rules of version %d", v.Number, n), nil
}

// overlayCounts counts the keys whose edit differs from cur to target:
// one target deletes is removed, one only cur deleted or only target
// adds is added (back), any other difference a change.
func overlayCounts(cur, target *edits.Overlay) edits.Counts {
	var c edits.Counts
	seen := map[string]bool{}
	for _, e := range target.Edits() {
		k := e.Key()
		seen[k] = true
		p, ok := cur.Get(k)
		switch {
		case ok && p.Entry == e.Entry:
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
