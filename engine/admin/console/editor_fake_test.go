package console

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/engine/admin"
)

// editFake is a fakeBackend whose rules are edited through drafts, as
// a node with [admin] edits_dir: numbered versions, version 0 the
// config's own rules (not kept as a file, yet rolled back to by
// number), drafts whose entries are counted as the daemon counts them.
type editFake struct {
	*fakeBackend
	drafts   map[string]*fakeDraft
	next     int
	promoted []admin.Audit
	// problems and samples are what every draft's view reports.
	problems []admin.Problem
	samples  []admin.Sample
	// ruleset is the archive Ruleset serves ("": none, as a node
	// without edits_dir).
	ruleset string
}

type fakeDraft struct {
	info    admin.DraftInfo
	entries []admin.DraftEntry
}

func newEditFake() *editFake {
	f := &editFake{fakeBackend: newFake(), drafts: map[string]*fakeDraft{}}
	f.versions = []admin.VersionInfo{
		{Hash: "bbbbbbbbbbbb", Number: 1, Serving: true, Kept: true, Rules: 3, Author: "amy", Message: "new pages",
			Counts: &admin.Counts{Added: 1}},
		{Hash: "aaaaaaaaaaaa", Number: 0, Rules: 2}, // the config's own: not kept as a file
	}
	return f
}

// Rollback takes a number, as the daemon's edited node does.
func (f *editFake) Rollback(to string, a admin.Audit) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := strconv.Atoi(to)
	if err != nil || n < 0 || n > 1 {
		return "", admin.ErrUnknownVersion
	}
	f.rolled = to
	return fmt.Sprintf("serving version 2, the rules of version %d", n), nil
}

func (f *editFake) NewDraft(author string) (admin.DraftInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	d := &fakeDraft{info: admin.DraftInfo{ID: "d" + strconv.Itoa(f.next), Base: 1, Author: author}}
	f.drafts[d.info.ID] = d
	return d.info, nil
}

func (f *editFake) Drafts(in admin.Scope) []admin.DraftInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []admin.DraftInfo
	for i := 1; i <= f.next; i++ {
		if d, ok := f.drafts["d"+strconv.Itoa(i)]; ok {
			info := d.info
			info.Entries = len(d.entries)
			out = append(out, info)
		}
	}
	return out
}

func (f *editFake) Draft(id string, in admin.Scope, limit, offset int) (*admin.DraftView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drafts[id]
	if !ok {
		return nil, admin.ErrNoDraft
	}
	v := &admin.DraftView{ID: id, Base: d.info.Base, Problems: f.problems, Samples: f.samples}
	page := func(n int) bool { return n > offset && n <= offset+limit }
	for _, e := range d.entries {
		if !in(e.Host) {
			continue
		}
		r := admin.EditRule{Host: e.Host, From: e.From, To: e.To, Status: e.Status, Kind: e.Kind}
		switch e.Op {
		case "delete":
			if v.Counts.Removed++; page(v.Counts.Removed) {
				v.Removed = append(v.Removed, r)
			}
		case "change":
			if v.Counts.Changed++; page(v.Counts.Changed) {
				v.Changed = append(v.Changed, admin.EditChange{Old: admin.EditRule{Host: e.Host, From: e.From, To: "/before", Status: 301}, New: r})
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
func (f *editFake) AddEntry(id, author string, e admin.DraftEntry, in admin.Scope) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drafts[id]
	if !ok {
		return admin.ErrNoDraft
	}
	if e.Op != "delete" && e.To == "" && e.Status != 410 && e.Status != 451 {
		return fmt.Errorf("%w: an %s needs a target", admin.ErrBadEdit, e.Op)
	}
	d.entries = append(d.entries, e)
	return nil
}

// Upload reads CSV rows source,target,status.
func (f *editFake) Upload(id, author, contentType string, body io.Reader, in admin.Scope) (int, error) {
	var list []admin.DraftEntry
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
		list = append(list, admin.DraftEntry{Op: "add", From: parts[0], To: parts[1], Status: st})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.drafts[id]
	if !ok {
		return 0, admin.ErrNoDraft
	}
	d.entries = append(d.entries, list...)
	return len(list), nil
}

func (f *editFake) DiscardDraft(id string, in admin.Scope) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.drafts, id)
	return nil
}

func (f *editFake) Promote(id string, a admin.Audit, in admin.Scope) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.drafts[id]; !ok {
		return 0, admin.ErrNoDraft
	}
	delete(f.drafts, id)
	f.promoted = append(f.promoted, a)
	return 2, nil
}

func (f *editFake) Ruleset() (admin.Ruleset, error) {
	if f.ruleset == "" {
		return admin.Ruleset{}, admin.ErrNoRuleset
	}
	data, err := os.ReadFile(f.ruleset)
	if err != nil {
		return admin.Ruleset{}, err
	}
	return admin.Ruleset{Data: data, ETag: `"x"`}, nil
}
