package edits

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/matcher"
)

// TestUnpinTarget: what an unpin does, for every node: nothing to
// unpin without a source or a pin; the pin alone when the source's
// newest version serves already (or none loaded); else that version.
func TestUnpinTarget(t *testing.T) {
	tests := []struct {
		name           string
		source, pinned bool
		latest         string
		want, err      string
	}{
		{name: "no source", latest: "bbb", err: "rollback needs [rules] source"},
		{name: "not pinned", source: true, latest: "bbb", err: "nothing is pinned"},
		{name: "newest serves", source: true, pinned: true, latest: "aaa", want: ""},
		{name: "none loaded", source: true, pinned: true, want: ""},
		{name: "newest loads", source: true, pinned: true, latest: "bbb", want: "bbb"},
	}
	for _, tt := range tests {
		var vl VersionLog
		vl.SetKeep(5)
		vl.Record(edit.Version{Hash: "bbb", Kept: true}, 1, KeepPin)
		p := ClearPin
		if tt.pinned {
			p = SetPin
		}
		vl.Record(edit.Version{Hash: "aaa", Kept: true}, 1, p)
		got, err := vl.UnpinTarget(tt.source, tt.latest)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %q, %v; want an error saying %q", tt.name, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// fakeLoader is a RuleLoader that says which way a version's rules
// were asked for.
type fakeLoader struct{ asked []string }

func (f *fakeLoader) Serving() *matcher.Set { f.asked = append(f.asked, "serving"); return nil }
func (f *fakeLoader) Edited(v *edit.Version) (*matcher.Set, error) {
	f.asked = append(f.asked, "edited")
	return nil, nil
}
func (f *fakeLoader) Fetched(v edit.Version) (*matcher.Set, error) {
	f.asked = append(f.asked, "fetched "+v.Hash)
	return nil, nil
}

// TestVersionRulesAndPinTarget: which rules a diff compares and what a
// rollback with a source may pin: the serving set for the version
// serving, a kept version from the cache, never a version of the local
// config (its files are not kept), and an unknown hash is
// ErrUnknownVersion.
func TestVersionRulesAndPinTarget(t *testing.T) {
	var vl VersionLog
	vl.SetKeep(5)
	vl.Record(edit.Version{Hash: "local"}, 1, KeepPin)
	vl.Record(edit.Version{Hash: "kept", Kept: true}, 1, KeepPin)
	vl.Record(edit.Version{Hash: "now", Kept: true}, 1, KeepPin)
	ed := NewState(Options{})
	tests := []struct {
		hash   string
		source bool
		asked  []string
		err    string
	}{
		{hash: "now", source: true, asked: []string{"serving"}},
		{hash: "kept", source: true, asked: []string{"fetched kept"}},
		{hash: "local", source: true, err: "not kept"},
		{hash: "kept", source: false, err: "not kept"},
		{hash: "nope", source: true, err: "no such version"},
	}
	for _, tt := range tests {
		var l fakeLoader
		_, err := vl.VersionRules(tt.hash, ed, tt.source, &l)
		_, perr := vl.PinTarget(tt.hash, tt.source)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || perr == nil || !strings.Contains(perr.Error(), tt.err) {
				t.Errorf("%s (source %v): diff %v, rollback %v; want both to say %q", tt.hash, tt.source, err, perr, tt.err)
			}
			if tt.hash == "nope" && !errors.Is(err, edit.ErrUnknownVersion) {
				t.Errorf("%s: %v, want ErrUnknownVersion", tt.hash, err)
			}
			continue
		}
		if err != nil || perr != nil {
			t.Errorf("%s: diff %v, rollback %v", tt.hash, err, perr)
		}
		if diff := cmp.Diff(tt.asked, l.asked); diff != "" {
			t.Errorf("%s: rules asked (-want +got):\n%s", tt.hash, diff)
		}
	}
}

// anySyntax is an edit.Syntax that takes every host and rule.
type anySyntax struct{}

func (anySyntax) RuleHost(h string) (string, error) { return h, nil }
func (anySyntax) Writable(*matcher.Rule) error      { return nil }
func (anySyntax) ReadCSV(io.Reader, func(int, []matcher.Rule) error) error {
	return nil
}

// TestPromoteAndRollback: a promote whose version does not serve keeps
// its draft and says why (ErrNotDurable as it is, any other failure
// ErrInvalid); one that serves drops it; a rollback serves the edits of
// the version named as the next number and says so.
func TestPromoteAndRollback(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	ed, err := Open(Options{Dir: t.TempDir(), Keep: 5, MaxDrafts: 5, MaxEntries: 10, Syntax: anySyntax{}}, log)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := matcher.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	ed.Serve(func() *matcher.Set { return rules }, func(string, string) string { return "404" })
	all := func(string) bool { return true }
	// serve is the daemon's: a Commit, its rules "loaded" (or not).
	serve := func(fail error) Serve {
		return func(v *edit.Version, action string) error {
			defer ed.Unstage()
			cm := ed.Begin(Change{Action: action, Who: edit.Audit{Author: v.Author, Message: v.Message}, Version: v,
				Durable: func() error { return ed.Store().Commit(v.Number) }}, true, log)
			if fail != nil {
				cm.Failed()
				return ServeFailed(fail)
			}
			if err := cm.Durable(fmt.Sprint("h", v.Number)); err != nil {
				return ServeFailed(err)
			}
			cm.Served()
			return nil
		}
	}
	d, err := ed.NewDraft("ed")
	if err != nil {
		t.Fatal(err)
	}
	if err := ed.AddEntry(d.ID, "ed", edit.Entry{Op: edit.OpAdd, Kind: "exact", From: "/a", To: "/b"}, all); err != nil {
		t.Fatal(err)
	}
	for _, fail := range []struct {
		err  error
		want error
	}{{fmt.Errorf("disk full: %w", edit.ErrNotDurable), edit.ErrNotDurable}, {errors.New("a loop"), edit.ErrInvalid}} {
		if _, err := ed.Promote(d.ID, edit.Audit{Author: "pub", Message: "m"}, all, serve(fail.err)); !errors.Is(err, fail.want) {
			t.Errorf("a promote that failed with %v: %v, want %v", fail.err, err, fail.want)
		}
		if n := len(ed.Drafts(all)); n != 1 {
			t.Errorf("after a failed promote, %d drafts, want the draft kept", n)
		}
	}
	n, err := ed.Promote(d.ID, edit.Audit{Author: "pub", Message: "m"}, all, serve(nil))
	if err != nil || n != 1 || len(ed.Drafts(all)) != 0 {
		t.Fatalf("promote: version %d, %v, %d drafts; want version 1 and the draft dropped", n, err, len(ed.Drafts(all)))
	}
	var vl VersionLog
	msg, err := ed.Rollback("0", &vl, edit.Audit{Author: "bob", Message: "back"}, serve(nil))
	if err != nil || msg != "serving version 2, the rules of version 0" {
		t.Errorf("rollback to 0: %q, %v", msg, err)
	}
	if cur, ov := ed.Serving(); cur.Number != 2 || cur.RollbackOf != 0 || ov.Len() != 0 {
		t.Errorf("serving after the rollback: version %d of %d, %d edits; want 2, of 0, none", cur.Number, cur.RollbackOf, ov.Len())
	}
}
