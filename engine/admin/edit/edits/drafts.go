package edits

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/matcher"
)

// The edit.Editor methods: drafts over the serving rules.

func (ed *State) NewDraft(author string) (edit.Draft, error) {
	if err := ed.refuse(); err != nil {
		return edit.Draft{}, err
	}
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if err := ed.draftQuota(author); err != nil {
		return edit.Draft{}, err
	}
	ed.next++
	d := &draft{info: edit.Draft{ID: "d" + strconv.Itoa(ed.next), Base: ed.cur.Number, Author: author, Created: now()}, ov: NewOverlay()}
	ed.drafts[d.info.ID] = d
	return d.info, nil
}

func (ed *State) Drafts(in edit.Scope) []edit.Draft {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	out := []edit.Draft{}
	for i := 1; i <= ed.next; i++ {
		d, ok := ed.drafts["d"+strconv.Itoa(i)]
		if !ok {
			continue
		}
		info := d.info
		info.Entries = 0
		for _, e := range d.ov.Edits() {
			if in(e.Host) {
				info.Entries++
			}
		}
		out = append(out, info)
	}
	return out
}

func (ed *State) DiscardDraft(id string, in edit.Scope) error {
	d, err := ed.lockDraft(id)
	if err != nil {
		return err
	}
	defer ed.mu.Unlock()
	if err := allIn(d.ov, in); err != nil {
		return err
	}
	delete(ed.drafts, id)
	return nil
}

// allIn returns ErrOutOfScope naming the first edit of ov outside in.
func allIn(ov *Overlay, in edit.Scope) error {
	for _, e := range ov.Edits() {
		if !in(e.Host) {
			return fmt.Errorf("%w: the draft holds %s", edit.ErrOutOfScope, e.String())
		}
	}
	return nil
}

func (ed *State) AddEntry(id, author string, de edit.Entry, in edit.Scope) error {
	e := edit.Entry(de)
	if err := e.Check(ed.syn); err != nil {
		return fmt.Errorf("%w: %v", edit.ErrBadEdit, err)
	}
	if !in(e.Host) {
		return fmt.Errorf("%w: %s", edit.ErrOutOfScope, e.String())
	}
	d, err := ed.lockDraft(id)
	if err != nil {
		return err
	}
	defer ed.mu.Unlock()
	set := ed.rules()
	var m matcher.Match
	drop, err := ed.resolve(set, &m, d, &e)
	if err != nil {
		return fmt.Errorf("%w: %v", edit.ErrBadEdit, err)
	}
	if drop {
		d.ov.Remove(e.Key())
		return nil
	}
	if _, ok := d.ov.Get(e.Key()); !ok {
		if err := ed.entryQuota(d, d.ov.Len()+1); err != nil {
			return err
		}
	}
	d.ov.Put(edit.Edit{Entry: e, By: author, At: now()})
	return nil
}

// resolve fits e to the rules it edits: an add of a rule that exists is
// a change, a change or delete of one that does not is an error, and a
// change takes the kind of the rule it changes. drop is a delete of a
// rule only the draft adds: the draft's add goes, and nothing is kept.
// ed.mu is held.
func (ed *State) resolve(set *matcher.Set, m *matcher.Match, d *draft, e *edit.Entry) (drop bool, err error) {
	_, inDraft := d.ov.Get(e.Key())
	r := findEdited(set, m, e)
	if prev, ok := d.ov.Get(e.Key()); ok && prev.Op == edit.OpDelete {
		inDraft, r = false, nil // deleted in this draft: an add adds it again
	}
	exists := inDraft || r != nil
	if prev, ok := d.ov.Get(e.Key()); ok && prev.Op == edit.OpAdd && e.Op == edit.OpChange {
		e.Op = edit.OpAdd // still an add, of the rule this draft adds
	}
	switch {
	case e.Op == edit.OpAdd && r != nil:
		e.Op = edit.OpChange
	case e.Op != edit.OpAdd && !exists:
		return false, fmt.Errorf("%s: no rule has host %q and from %q; add it with op add", e.String(), e.Host, cut(e.From))
	case e.Op == edit.OpDelete && r == nil:
		return true, nil
	}
	if e.Kind == "" && r != nil {
		e.Kind = r.Kind.String()
	}
	return false, nil
}

func (ed *State) Upload(id, author, contentType string, body io.Reader, in edit.Scope) (int, error) {
	if err := ed.refuse(); err != nil {
		return 0, err
	}
	d, err := ed.lockDraft(id)
	if err != nil {
		return 0, err
	}
	room := ed.maxEntries - ed.heldBy(d.info.Author, d)
	ed.mu.Unlock()
	type lined struct {
		line int
		e    edit.Entry
	}
	var got []lined
	err = Parse(ed.syn, contentType, body, func(line int, e edit.Entry) error {
		if !in(e.Host) {
			return fmt.Errorf("%w: %s", edit.ErrOutOfScope, e.String())
		}
		if len(got) >= room {
			// Stop reading: more lines than the quota leaves cannot be
			// added, and holding them would cost what the quota bounds.
			return fmt.Errorf("%w: the upload holds more than the %d entries the drafts of %q may still hold ([admin] max_draft_entries %d); split it, or promote or discard a draft", edit.ErrQuota, room, d.info.Author, ed.maxEntries)
		}
		got = append(got, lined{line, e})
		return nil
	})
	if err != nil {
		var mb *http.MaxBytesError
		switch {
		case errors.Is(err, edit.ErrOutOfScope), errors.Is(err, edit.ErrQuota):
			return 0, fmt.Errorf("%w; nothing was added", err)
		case errors.As(err, &mb):
			return 0, err
		}
		return 0, fmt.Errorf("%w: %v; nothing was added", edit.ErrBadEdit, err)
	}
	d, err = ed.lockDraft(id) // discarded meanwhile?
	if err != nil {
		return 0, err
	}
	defer ed.mu.Unlock()
	set := ed.rules()
	var m matcher.Match
	// Resolved against a copy, so that a bad line leaves the draft as
	// it was.
	trial := d.ov.Merge(nil)
	t := &draft{info: d.info, ov: trial}
	at := now()
	for _, l := range got {
		drop, err := ed.resolve(set, &m, t, &l.e)
		if err != nil {
			return 0, fmt.Errorf("%w: upload line %d: %v; nothing was added", edit.ErrBadEdit, l.line, err)
		}
		if drop {
			trial.Remove(l.e.Key())
			continue
		}
		trial.Put(edit.Edit{Entry: l.e, By: author, At: at})
	}
	if err := ed.entryQuota(d, trial.Len()); err != nil {
		return 0, fmt.Errorf("%w; nothing was added", err)
	}
	d.ov = trial
	return len(got), nil
}
