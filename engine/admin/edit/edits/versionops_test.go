package edits

import (
	"errors"
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
