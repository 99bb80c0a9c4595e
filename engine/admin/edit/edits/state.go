package edits

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/shorten"
	"github.com/redirectd/redirectd/matcher"
)

// State is what the editing path edits: the promoted version serving
// (kept in [admin] edits_dir), the drafts open against it, and the
// audit log. It is the edit.Editor of a server's drafts (drafts.go,
// draftview.go) and makes the versions that a promote or rollback
// serves (promote.go); the daemon loads and swaps their rules. Its
// mutex guards its fields; a promote or rollback also holds the
// daemon's, which is taken first.
type State struct {
	mu sync.Mutex
	// store is nil when edits are off (no edits_dir); source is the
	// [rules] source URL of a node whose rules come from one.
	store  *Store
	source string
	audit  *Audit // nil for none
	// aborts are abort records apply could not append; each is
	// appended before the next record (recovery at start counts on
	// it).
	aborts []edit.Record
	// last is the audit log's last record when it was opened, for the
	// recovery of a node with a source (recoverSource).
	last *edit.Record
	// cur is the version serving (Number 0: the config's own rules),
	// ov its edits indexed.
	cur *edit.Version
	ov  *Overlay
	// staged is the version a promote or rollback is making, with its
	// edits indexed, so that loading it and serving it after reuse the
	// index (a million edits take a second to index, and as much again
	// of garbage collection); held only while the change runs.
	staged stagedVersion
	// next is the number of the next draft's id ("d1", "d2", ...).
	next   int
	drafts map[string]*draft
	// made are the authors and messages of versions, read once each
	// (Made): a version's never change.
	made map[int]edit.Audit
	// maxDrafts and maxEntries are [admin] max_drafts and
	// max_draft_entries (quota.go).
	maxDrafts, maxEntries int
	// syn checks entries as the config does; rules and miss are the
	// serving rules and the answer to a URL none takes, which drafts
	// are shown against (Serve).
	syn   edit.Syntax
	rules func() *matcher.Set
	miss  func(host, path string) string
}

// stagedVersion is a version being made and its edits indexed.
type stagedVersion struct {
	v  *edit.Version
	ov *Overlay
}

// overlay returns v's edits indexed: the staged index when v is the
// version staged, else one built now. ed.mu is held.
func (ed *State) overlay(v *edit.Version) *Overlay {
	if ed.staged.v == v {
		return ed.staged.ov
	}
	return FromEdits(v.Edits)
}

// draft is an open draft: its own edits, over the version it started
// from.
type draft struct {
	info edit.Draft
	ov   *Overlay
}

// Options are what Open opens: [admin] audit_log, edits_dir and the
// draft quotas, [rules] keep_versions and source.
type Options struct {
	// AuditLog is the audit log's path ("" or "off": none).
	AuditLog string
	// Dir is edits_dir ("": drafts are off), Keep how many versions it
	// keeps.
	Dir  string
	Keep int
	// Source is the [rules] source URL of a node whose rules come from
	// one, which takes no edits.
	Source                string
	MaxDrafts, MaxEntries int
	Syntax                edit.Syntax
}

// Open opens o's audit log and edits_dir, completes or rolls back what
// a crash interrupted (recoverEdits), and reads the version serving.
func Open(o Options, log *slog.Logger) (*State, error) {
	ed := NewState(o)
	var recs []edit.Record
	if o.AuditLog != "" && o.AuditLog != "off" {
		a, r, bad, err := OpenAudit(o.AuditLog)
		if err != nil {
			return nil, err
		}
		if bad > 0 {
			log.Warn("[admin] audit_log has lines that do not parse (written by an older redirectd); they are kept as they are", "path", o.AuditLog, "lines", bad)
		}
		ed.audit, recs = a, r
		if len(r) > 0 {
			ed.last = &r[len(r)-1]
		}
	}
	if o.Dir == "" {
		return ed, nil
	}
	st, err := OpenStore(o.Dir, o.Keep)
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
	ed.cur, ed.ov = v, FromEdits(v.Edits)
	return ed, nil
}

// NewState returns a State of o without its files: no audit log, and
// drafts off.
func NewState(o Options) *State {
	return &State{source: o.Source, cur: &edit.Version{}, ov: NewOverlay(), drafts: map[string]*draft{},
		maxDrafts: o.MaxDrafts, maxEntries: o.MaxEntries, syn: o.Syntax,
		rules: func() *matcher.Set { return nil }, miss: func(string, string) string { return "404" }}
}

// Serve gives ed the serving rules, which drafts are resolved and shown
// against, and the answer to a URL no rule takes ("forwarded" when an
// upstream takes it, else "404").
func (ed *State) Serve(rules func() *matcher.Set, miss func(host, path string) string) {
	ed.rules, ed.miss = rules, miss
}

// recoverEdits brings the audit log in line with the commit record of
// edits_dir, which says what was promoted: a promote or rollback whose
// record was written but that did not commit gets an abort record (and
// its number is not used again); the version serving, committed but
// without a record (the process ended between the two, or the audit log
// is new), gets its record, marked recovered.
func (ed *State) recoverEdits(recs []edit.Record, log *slog.Logger) error {
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
	if v.Rollback {
		action = "rollback"
	}
	log.Warn("the version serving has no record in [admin] audit_log: recording it from its file", "version", n)
	return ed.audit.Append(edit.Record{Time: v.Time, Action: action, Version: n, Base: v.Base, RollbackOf: v.RollbackOf,
		Author: v.Author, Message: v.Message, Counts: v.Counts, Recovered: true})
}

// Apply lays v's edits (the serving version's when v is nil) over set,
// the config's rules, and returns the rules edited (set itself when
// there are no edits). The deletes that found no rule are logged: the
// config no longer has them. file names the config in an error.
func (ed *State) Apply(set *matcher.Set, v *edit.Version, lim matcher.Limits, file string, log *slog.Logger) (*matcher.Set, error) {
	if ed == nil || ed.store == nil {
		return set, nil
	}
	var ov *Overlay
	ed.mu.Lock()
	if v == nil {
		v, ov = ed.cur, ed.ov
	} else {
		ov = ed.overlay(v)
	}
	ed.mu.Unlock()
	if ov.Len() == 0 {
		return set, nil
	}
	out, gone, err := Apply(set, ov, lim)
	if err != nil {
		return nil, fmt.Errorf("the edits of version %d ([admin] edits_dir %s) do not apply to %s: %w", v.Number, ed.store.Dir(), file, err)
	}
	for _, g := range gone {
		log.Warn("a stored edit deletes a rule the config no longer has", "version", v.Number, "edit", g)
	}
	return out, nil
}

// refuse says why this node takes no edits, or nil.
func (ed *State) refuse() error {
	if ed.source != "" {
		return fmt.Errorf("%w: this node's rules come from %s; edit them on the node that serves it", edit.ErrEditRefused, ed.source)
	}
	if ed.store == nil {
		return fmt.Errorf("%w: drafts are off: set [admin] edits_dir to a folder that keeps the versions promoted", edit.ErrEditRefused)
	}
	return nil
}

// Made is who made version n (a promote's or rollback's author) and
// why (its message), empty when it is no longer kept: what /rules, the
// console and a fleet's origins show beside a rule's last change.
func (ed *State) Made(n int) edit.Audit {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if ed.store == nil {
		return edit.Audit{}
	}
	if m, ok := ed.made[n]; ok {
		return m
	}
	var m edit.Audit
	if v, err := ed.store.Head(n); err == nil {
		m = edit.Audit{Author: v.Author, Message: v.Message}
	}
	if ed.made == nil {
		ed.made = map[int]edit.Audit{}
	}
	ed.made[n] = m
	return m
}

// lockDraft locks ed.mu and returns draft id, for the caller to read or
// change and then unlock ed.mu: the one way the drafts' methods find
// theirs. On an error (no such draft) ed.mu is unlocked again.
func (ed *State) lockDraft(id string) (*draft, error) {
	ed.mu.Lock()
	d, ok := ed.drafts[id]
	if !ok {
		ed.mu.Unlock()
		return nil, fmt.Errorf("draft %q: %w", shorten.Text(id, 64), edit.ErrNoDraft)
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

// The daemon's side of a change to the rules served (its apply): the
// version staged, its record, its outcome.

// Store is the store of edits_dir, nil when drafts are off.
func (ed *State) Store() *Store { return ed.store }

// AuditLog is the audit log, nil for none.
func (ed *State) AuditLog() *Audit { return ed.audit }

// LastRecord is the audit log's last record when it was opened, nil for
// none: what the recovery of a node with a source reads.
func (ed *State) LastRecord() *edit.Record { return ed.last }

// Serving returns the version serving and its edits indexed.
func (ed *State) Serving() (*edit.Version, *Overlay) {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	return ed.cur, ed.ov
}

// Served makes v, staged, the version serving: its rules swapped in.
func (ed *State) Served(v *edit.Version) {
	ed.mu.Lock()
	ed.cur, ed.ov = v, ed.overlay(v)
	ed.mu.Unlock()
}

// Unstage ends a change: the version staged, served or not, is let go.
func (ed *State) Unstage() {
	ed.mu.Lock()
	ed.staged = stagedVersion{}
	ed.mu.Unlock()
}

// Record is the audit record of a change: action by who, making v (nil
// for a change that is not a version of edits), serving the rules of
// hash.
func Record(action string, who edit.Audit, v *edit.Version, hash string) edit.Record {
	r := edit.Record{Time: now(), Action: action, Author: who.Author, Message: who.Message}
	if v != nil {
		r.Time, r.Version, r.Base, r.RollbackOf, r.Counts = v.Time, v.Number, v.Base, v.RollbackOf, v.Counts
	}
	r.Hash = hash
	return r
}

// AppendAudit appends r to the audit log, synced, after the abort
// records held back (HoldAbort); nothing without a log. The daemon's
// lock on changes is held.
func (ed *State) AppendAudit(r edit.Record) error {
	if ed.audit == nil {
		return nil
	}
	for len(ed.aborts) > 0 {
		if err := ed.audit.Append(ed.aborts[0]); err != nil {
			return err
		}
		ed.aborts = ed.aborts[1:]
	}
	return ed.audit.Append(r)
}

// HoldAbort keeps an abort record that could not be appended, to be
// appended before the next record (recovery at start counts on it).
func (ed *State) HoldAbort(r edit.Record) { ed.aborts = append(ed.aborts, r) }

// Now is the time a record or draft is stamped with: UTC, to the second.
func Now() time.Time { return now() }

func cut(s string) string { return shorten.Text(s, 80) }
