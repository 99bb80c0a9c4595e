package console

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// editFake is a fakeBackend whose rules are edited through drafts, as
// a node with [admin] edits_dir: numbered versions, version 0 the
// config's own rules (not kept as a file, yet rolled back to by
// number), drafts whose entries are counted as the daemon counts them.
type editFake struct {
	*fakeBackend
	drafts   map[string]*fakeDraft
	next     int
	promoted []edit.Audit
	// problems and samples are what every draft's view reports.
	problems []edit.Problem
	samples  []edit.Sample
	// ruleset is the archive Ruleset serves ("": none, as a node
	// without edits_dir).
	ruleset string
	// hold, when set, holds each promote until it is closed; ended is
	// sent to when a promote ends.
	hold  chan struct{}
	ended chan struct{}
}

type fakeDraft struct {
	info    edit.Draft
	entries []edit.Entry
}

func newEditFake() *editFake {
	f := &editFake{fakeBackend: newFake(), drafts: map[string]*fakeDraft{}}
	f.versions = []edit.Version{
		{Hash: "bbbbbbbbbbbb", Number: 1, Serving: true, Kept: true, Rules: 3, Author: "amy", Message: "new pages",
			Counts: &edit.Counts{Added: 1}},
		{Hash: "aaaaaaaaaaaa", Number: 0, Rules: 2}, // the config's own: not kept as a file
	}
	return f
}

// Rollback takes a number, as the daemon's edited node does.
func (f *editFake) Rollback(to string, a edit.Audit) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := strconv.Atoi(to)
	if err != nil || n < 0 || n > 1 {
		return "", edit.ErrUnknownVersion
	}
	f.rolled = to
	return fmt.Sprintf("serving version 2, the rules of version %d", n), nil
}

func (f *editFake) NewDraft(author string) (edit.Draft, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	d := &fakeDraft{info: edit.Draft{ID: "d" + strconv.Itoa(f.next), Base: 1, Author: author}}
	f.drafts[d.info.ID] = d
	return d.info, nil
}

func (f *editFake) Drafts(in edit.Scope) []edit.Draft {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []edit.Draft
	for i := 1; i <= f.next; i++ {
		if d, ok := f.drafts["d"+strconv.Itoa(i)]; ok {
			info := d.info
			info.Entries = len(d.entries)
			out = append(out, info)
		}
	}
	return out
}

func (f *editFake) Draft(id string, in edit.Scope, limit, offset int) (*edit.DraftView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drafts[id]
	if !ok {
		return nil, edit.ErrNoDraft
	}
	v := &edit.DraftView{ID: id, Base: d.info.Base, Problems: f.problems, Samples: f.samples}
	page := func(n int) bool { return n > offset && n <= offset+limit }
	for _, e := range d.entries {
		if !in(e.Host) {
			continue
		}
		r := edit.Rule{Host: e.Host, From: e.From, To: e.To, Status: e.Status, Kind: e.Kind, Entry: &e}
		// Written as the daemon writes them, near enough for a page.
		for _, k := range slices.Sorted(maps.Keys(e.When)) {
			r.Conditions = append(r.Conditions, fmt.Sprintf("%s = %v", k, e.When[k]))
		}
		for _, k := range slices.Sorted(maps.Keys(e.Query)) {
			r.Conditions = append(r.Conditions, "query "+k+" = "+e.Query[k])
		}
		for _, k := range slices.Sorted(maps.Keys(e.Headers)) {
			r.Headers = append(r.Headers, k+": "+e.Headers[k])
		}
		switch e.Op {
		case "delete":
			if v.Counts.Removed++; page(v.Counts.Removed) {
				v.Removed = append(v.Removed, r)
			}
		case "change":
			if v.Counts.Changed++; page(v.Counts.Changed) {
				v.Changed = append(v.Changed, edit.Change[edit.Rule]{Old: edit.Rule{Host: e.Host, From: e.From, To: "/before", Status: 301}, New: r})
			}
		default:
			if v.Counts.Added++; page(v.Counts.Added) {
				v.Added = append(v.Added, r)
			}
		}
	}
	return v, nil
}

// AddEntry refuses an add or change without a target, as the daemon
// does, so that a test sees the form's error.
func (f *editFake) AddEntry(id, author string, e edit.Entry, in edit.Scope) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drafts[id]
	if !ok {
		return edit.ErrNoDraft
	}
	if e.Op != "delete" && e.To == "" && e.Status != 410 && e.Status != 451 {
		return fmt.Errorf("%w: an %s needs a target", edit.ErrBadEdit, e.Op)
	}
	d.entries = append(d.entries, e)
	return nil
}

// Upload reads CSV rows source,target,status.
func (f *editFake) Upload(id, author, contentType string, body io.Reader, in edit.Scope) (int, error) {
	var list []edit.Entry
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), ",")
		if len(parts) < 2 {
			continue
		}
		st := 301
		if len(parts) > 2 {
			st, _ = strconv.Atoi(parts[2])
		}
		list = append(list, edit.Entry{Op: "add", From: parts[0], To: parts[1], Status: st})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drafts[id]
	if !ok {
		return 0, edit.ErrNoDraft
	}
	d.entries = append(d.entries, list...)
	return len(list), nil
}

func (f *editFake) DiscardDraft(id string, in edit.Scope) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.drafts, id)
	return nil
}

func (f *editFake) Promote(id string, a edit.Audit, in edit.Scope) (int, error) {
	if f.hold != nil {
		<-f.hold
		defer func() { f.ended <- struct{}{} }()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.drafts[id]; !ok {
		return 0, edit.ErrNoDraft
	}
	delete(f.drafts, id)
	f.promoted = append(f.promoted, a)
	return 2, nil
}

func (f *editFake) Ruleset() (edit.Ruleset, error) {
	if f.ruleset == "" {
		return edit.Ruleset{}, edit.ErrNoRuleset
	}
	data, err := os.ReadFile(f.ruleset)
	if err != nil {
		return edit.Ruleset{}, err
	}
	return edit.Ruleset{Data: data, ETag: `"x"`}, nil
}
