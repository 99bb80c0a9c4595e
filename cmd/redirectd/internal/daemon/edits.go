package daemon

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/source"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/admin/edit/edits"
)

// editState is what the admin API's drafts edit: the promoted version
// serving (kept in [admin] edits_dir), and the drafts open against it.
// Its mutex guards its fields; a promote or rollback also holds the
// service's, which is taken first.
type editState struct {
	mu sync.Mutex
	// store is nil when edits are off (no edits_dir); source is the
	// [rules] source URL of a node whose rules come from one.
	store  *edits.Store
	source string
	audit  *edits.Audit // nil for none
	// aborts are abort records apply could not append; each is
	// appended before the next record (recovery at start counts on
	// it).
	aborts []edit.Record
	// last is the audit log's last record when it was opened, for the
	// recovery of a node with a source (recoverSource).
	last *edit.Record
	// cur is the version serving (Number 0: the config's own rules),
	// ov its edits indexed.
	cur *edits.Version
	ov  *edits.Overlay
	// staged is the version a promote or rollback is making, with its
	// edits indexed, so that loading it and serving it after reuse the
	// index (a million edits take a second to index, and as much again
	// of garbage collection); held only while the change runs.
	staged stagedVersion
	// next is the number of the next draft's id ("d1", "d2", ...).
	next   int
	drafts map[string]*draft
	// ruleset is the archive of the version serving, made on the
	// first GET /ruleset after it changes, with its ETag: one value,
	// replaced whole. rulesetMu serialises the making.
	ruleset   atomic.Pointer[edit.Ruleset]
	rulesetMu sync.Mutex
	// messages are the promote messages of versions, read once each
	// (message): a version's message never changes.
	messages map[int]string
	// maxDrafts and maxEntries are [admin] max_drafts and
	// max_draft_entries (quota.go).
	maxDrafts, maxEntries int
}

// stagedVersion is a version being made and its edits indexed.
type stagedVersion struct {
	v  *edits.Version
	ov *edits.Overlay
}

// overlay returns v's edits indexed: the staged index when v is the
// version staged, else one built now. ed.mu is held.
func (ed *editState) overlay(v *edits.Version) *edits.Overlay {
	if ed.staged.v == v {
		return ed.staged.ov
	}
	return edits.FromEdits(v.Edits)
}

// draft is an open draft: its own edits, over the version it started
// from.
type draft struct {
	info edit.Draft
	ov   *edits.Overlay
}

// openEdits opens cfg's [admin] audit_log and edits_dir, completes or
// rolls back what a crash interrupted (recoverEdits), and reads the
// version serving.
func openEdits(cfg *config.Config, log *slog.Logger) (*editState, error) {
	ed := &editState{source: cfg.Reload.Source, cur: &edits.Version{}, ov: edits.NewOverlay(), drafts: map[string]*draft{},
		maxDrafts: cmp.Or(cfg.Admin.MaxDrafts, config.DefaultMaxDrafts), maxEntries: cmp.Or(cfg.Admin.MaxDraftEntries, config.DefaultMaxDraftEntries)}
	var recs []edit.Record
	if cfg.Admin.AuditLog != "" && cfg.Admin.AuditLog != "off" {
		a, r, bad, err := edits.OpenAudit(cfg.Admin.AuditLog)
		if err != nil {
			return nil, err
		}
		if bad > 0 {
			log.Warn("[admin] audit_log has lines that do not parse (written by an older redirectd); they are kept as they are", "path", cfg.Admin.AuditLog, "lines", bad)
		}
		ed.audit, recs = a, r
		if len(r) > 0 {
			ed.last = &r[len(r)-1]
		}
	}
	if cfg.Admin.EditsDir == "" {
		return ed, nil
	}
	st, err := edits.Open(cfg.Admin.EditsDir, cmp.Or(cfg.Reload.KeepVersions, config.DefaultKeepVersions))
	if err != nil {
		return nil, err
	}
	ed.store = st
	if err := ed.recoverEdits(recs, log); err != nil {
		return nil, err
	}
	n, _ := st.Current()
	v, err := st.Load(n)
	if err != nil {
		return nil, fmt.Errorf("[admin] edits_dir: %w", err)
	}
	ed.cur, ed.ov = v, edits.FromEdits(v.Edits)
	return ed, nil
}

// recoverEdits brings the audit log in line with the commit record of
// edits_dir, which says what was promoted: a promote or rollback whose
// record was written but that did not commit gets an abort record (and
// its number is not used again); the version serving, committed but
// without a record (the process ended between the two, or the audit log
// is new), gets its record, marked recovered.
func (ed *editState) recoverEdits(recs []edit.Record, log *slog.Logger) error {
	if ed.audit == nil {
		return nil
	}
	// Numbers only grow, and each commit serves its version, so a
	// change recorded after the one serving did not commit; one before
	// it did (and may since have been dropped past keep), or was
	// aborted while the process ran (apply holds an abort it could not
	// write until it can).
	serving, _ := ed.store.Current()
	open := map[int]edit.Record{} // recorded, not committed, not aborted
	recorded := map[int]bool{}
	for _, r := range recs {
		if r.Version == 0 {
			continue
		}
		ed.store.Reserve(r.Version)
		switch r.Action {
		case "abort":
			delete(open, r.Version)
		case "promote", "rollback":
			recorded[r.Version] = true
			if r.Version > serving {
				open[r.Version] = r
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(open)) {
		r := open[n]
		log.Warn("a change recorded in [admin] audit_log did not commit before redirectd stopped: recording its abort", "version", n, "action", r.Action, "author", r.Author)
		if err := ed.audit.Append(edit.Record{Time: now(), Action: "abort", Version: n, Author: r.Author, Recovered: true,
			Message: "the " + r.Action + " recorded above did not take effect: redirectd stopped before it committed"}); err != nil {
			return err
		}
	}
	n := serving
	if n == 0 || recorded[n] {
		return nil
	}
	v, err := ed.store.Load(n)
	if err != nil {
		return fmt.Errorf("[admin] edits_dir: %w", err)
	}
	action := "promote"
	if v.RollbackOf > 0 {
		action = "rollback"
	}
	c := v.Counts
	log.Warn("the version serving has no record in [admin] audit_log: recording it from its file", "version", n)
	return ed.audit.Append(edit.Record{Time: v.Time, Action: action, Version: n, Base: v.Base, RollbackOf: v.RollbackOf,
		Author: v.Author, Message: v.Message, Counts: &c, Recovered: true})
}

// apply lays v's edits (the serving version's when v is nil) over cfg's
// rules, replacing cfg.Set. It logs the deletes that found no rule: the
// config no longer has them.
func (ed *editState) apply(cfg *config.Config, v *edits.Version, log *slog.Logger) error {
	if ed == nil || ed.store == nil {
		return nil
	}
	var ov *edits.Overlay
	if v == nil {
		ed.mu.Lock()
		v, ov = ed.cur, ed.ov
		ed.mu.Unlock()
	} else {
		ed.mu.Lock()
		ov = ed.overlay(v)
		ed.mu.Unlock()
	}
	if ov.Len() == 0 {
		return nil
	}
	set, gone, err := edits.Apply(cfg.Set, ov, cfg.Reload.Limits())
	if err != nil {
		return fmt.Errorf("the edits of version %d ([admin] edits_dir %s) do not apply to %s: %w", v.Number, ed.store.Dir(), cfg.Path, err)
	}
	for _, g := range gone {
		log.Warn("a stored edit deletes a rule the config no longer has", "version", v.Number, "edit", g)
	}
	cfg.Set = set
	return nil
}

// editedHash mixes an edited version's number into the hash of the
// config it edits, so that each version is told apart in /versions.
func editedHash(h string, n int) string {
	if n == 0 {
		return h
	}
	sum := sha256.Sum256([]byte(h + "\x00edits\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:])[:source.HashLen]
}

// refuse says why this node takes no edits, or nil.
func (ed *editState) refuse() error {
	if ed.source != "" {
		return fmt.Errorf("%w: this node's rules come from %s; edit them on the node that serves it", edit.ErrEditRefused, ed.source)
	}
	if ed.store == nil {
		return fmt.Errorf("%w: drafts are off: set [admin] edits_dir to a folder that keeps the versions promoted", edit.ErrEditRefused)
	}
	return nil
}

// message is version n's promote message, "" when it is no longer kept:
// what /rules and the console show beside a rule's last change.
func (ed *editState) message(n int) string {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if ed.store == nil {
		return ""
	}
	if m, ok := ed.messages[n]; ok {
		return m
	}
	m := ""
	if v, err := ed.store.Head(n); err == nil {
		m = v.Message
	}
	if ed.messages == nil {
		ed.messages = map[int]string{}
	}
	ed.messages[n] = m
	return m
}

// getDraft returns draft id; ed.mu is held.
func (ed *editState) getDraft(id string) (*draft, error) {
	d, ok := ed.drafts[id]
	if !ok {
		return nil, fmt.Errorf("draft %q: %w", cutQ(id), edit.ErrNoDraft)
	}
	return d, nil
}

// baseChanged is the 409 of a draft whose base no longer serves.
func baseChanged(base, serving int) error {
	return fmt.Errorf("%w: the serving version changed since this draft started (base %d, serving %d): start a new draft", edit.ErrEditRefused, base, serving)
}

// errNoMessage is a rollback without a message on an edited node.
var errNoMessage = fmt.Errorf("%w: missing message: POST /versions/rollback?to=N&message=why; the audit trail records it", edit.ErrBadEdit)

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// describe fills in rv, a local config's version, with the edits of v
// laid over it (the serving version's when v is nil).
func (ed *editState) describe(rv ruleVersion, v *edits.Version) ruleVersion {
	if ed == nil || ed.store == nil {
		return rv
	}
	if v == nil {
		ed.mu.Lock()
		v = ed.cur
		ed.mu.Unlock()
	}
	if v.Number == 0 {
		return rv
	}
	rv.Hash = editedHash(rv.Hash, v.Number)
	rv.Number, rv.Author, rv.Message = v.Number, v.Author, v.Message
	c := v.Counts
	rv.Counts = &c
	rv.Source += " + edits v" + strconv.Itoa(v.Number)
	rv.Kept = true
	return rv
}
