package edit

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeBackend is an Editor and Versioner that records what reaches it.
type fakeBackend struct {
	calls []string
	diff  *VersionDiff
}

func (f *fakeBackend) record(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

func (f *fakeBackend) NewDraft(author string) (Draft, error) {
	f.record("new %s", author)
	return Draft{ID: "d1", Author: author}, nil
}
func (f *fakeBackend) Drafts(in Scope) []Draft { return nil }
func (f *fakeBackend) Draft(id string, in Scope, limit, offset int) (*DraftView, error) {
	return &DraftView{ID: id}, nil
}
func (f *fakeBackend) AddEntry(id, author string, e Entry, in Scope) error {
	f.record("add %s %s%s", id, e.Host, e.From)
	return nil
}
func (f *fakeBackend) Upload(id, author, contentType string, body io.Reader, in Scope) (int, error) {
	_, err := io.ReadAll(body)
	return 0, err
}
func (f *fakeBackend) DiscardDraft(id string, in Scope) error { return nil }
func (f *fakeBackend) Promote(id string, a Audit, in Scope) (int, error) {
	f.record("promote %s %s %q", id, a.Author, a.Message)
	return 2, nil
}
func (f *fakeBackend) Ruleset() (Ruleset, error)                             { return Ruleset{ETag: `"x"`}, nil }
func (f *fakeBackend) Versions() []Version                                   { return nil }
func (f *fakeBackend) Diff(from, to string, limit int) (*VersionDiff, error) { return f.diff, nil }
func (f *fakeBackend) Rollback(to string, a Audit) (string, error) {
	f.record("rollback %s %s", to, a.Author)
	return "rolled back", nil
}
func (f *fakeBackend) Unpin(a Audit) (string, error) {
	f.record("unpin %s", a.Author)
	return "unpinned", nil
}

// TestMay: the one table of who may do what, for each role, and for a
// token limited to some hosts.
func TestMay(t *testing.T) {
	s := NewService(&fakeBackend{})
	ids := []Identity{
		{Name: "v", Role: RoleViewer}, {Name: "e", Role: RoleEditor}, {Name: "p", Role: RolePublisher},
		{Name: "a", Role: RoleAdmin}, {Name: "sa", Role: RoleAdmin, Hosts: []string{"*.a.com"}},
	}
	got := map[string]string{}
	for op := range nOps {
		row := ""
		for _, id := range ids {
			if s.May(id, op) == nil {
				row += id.Name + " "
			}
		}
		got[ops[op].what] = strings.TrimSpace(row)
	}
	want := map[string]string{
		"listing drafts": "v e p a sa", "seeing a draft": "v e p a sa", "listing versions": "v e p a sa", "comparing versions": "v e p a sa",
		"making a draft": "e p a sa", "editing a draft": "e p a sa", "uploading to a draft": "e p a sa", "discarding a draft": "e p a sa",
		"promoting a draft": "p a sa", "rolling back": "p a", "unpinning": "a", "exporting every host's rules": "v e p a",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("who may (-want +got):\n%s", diff)
	}
}

// TestServiceRefuses: a refused operation never reaches the backend,
// and its error has the status the endpoints answer.
func TestServiceRefuses(t *testing.T) {
	f := &fakeBackend{}
	s := NewService(f)
	viewer := Identity{Name: "v", Role: RoleViewer}
	scoped := Identity{Name: "sp", Role: RolePublisher, Hosts: []string{"www.a.com"}}
	publisher := Identity{Name: "p", Role: RolePublisher}
	tests := []struct {
		name string
		do   func() error
		want int
	}{
		{"viewer adds", func() error { return s.AddEntry(viewer, "d1", Entry{Op: "add", Host: "www.a.com", From: "/a"}) }, 403},
		{"another host's entry", func() error { return s.AddEntry(scoped, "d1", Entry{Op: "add", Host: "www.b.com", From: "/a"}) }, 403},
		{"an entry of no host", func() error { return s.AddEntry(scoped, "d1", Entry{Op: "add", From: "/a"}) }, 403},
		{"a new draft of another host's entry", func() error {
			_, err := s.AddToNewDraft(scoped, []Entry{{Op: "add", Host: "www.a.com", From: "/a"}, {Op: "add", Host: "www.b.com", From: "/b"}})
			return err
		}, 403},
		{"scoped rollback", func() error { _, err := s.Rollback(scoped, "1", "x"); return err }, 403},
		{"publisher unpins", func() error { _, err := s.Unpin(publisher); return err }, 403},
		{"scoped export", func() error { _, err := s.Ruleset(scoped); return err }, 403},
		{"promote without a message", func() error { _, err := s.Promote(publisher, "d1", "  "); return err }, 400},
		{"diff without from", func() error { _, err := s.Diff(viewer, "", "", 10); return err }, 400},
	}
	for _, tt := range tests {
		if got := Status(tt.do()); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got, tt.want)
		}
	}
	if len(f.calls) != 0 {
		t.Errorf("refused operations reached the backend: %q", f.calls)
	}
	if _, err := s.Promote(scoped, "d1", " why "); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddToNewDraft(scoped, []Entry{{Op: "add", Host: "WWW.A.COM.", From: "/a"}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`promote d1 sp "why"`, "new sp", "add d1 WWW.A.COM./a"}, f.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// TestDiffScope: a scoped token's diff keeps its hosts' rules, a change
// only when both its rules are its hosts', and counts what it keeps,
// whatever the limit.
func TestDiffScope(t *testing.T) {
	a, b := Rule{Host: "www.a.com", From: "/a"}, Rule{Host: "www.b.com", From: "/b"}
	none := Rule{From: "/n"}
	f := &fakeBackend{diff: &VersionDiff{From: "x", To: "y", AddedCount: 3, RemovedCount: 1, ChangedCount: 3, Changes: Changes[Rule]{
		Added:   []Rule{a, b, a},
		Removed: []Rule{none},
		Changed: []Change[Rule]{{Old: a, New: a}, {Old: a, New: b}, {Old: b, New: a}},
	}}}
	s := NewService(f)
	got, err := s.Diff(Identity{Name: "s", Role: RoleViewer, Hosts: []string{"*.a.com"}}, "x", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := &VersionDiff{From: "x", To: "y", AddedCount: 2, ChangedCount: 1, Truncated: true, Changes: Changes[Rule]{
		Added: []Rule{a}, Removed: []Rule{}, Changed: []Change[Rule]{{Old: a, New: a}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scoped diff (-want +got):\n%s", diff)
	}
	if got, _ := s.Diff(Identity{Name: "all", Role: RoleViewer}, "x", "", 1); got != f.diff {
		t.Errorf("a token of every host got another diff than the backend's")
	}
}

// TestStatus: each error of the model, wrapped or not, is answered with
// its status.
func TestStatus(t *testing.T) {
	for err, want := range map[error]int{
		ErrNoDraft: 404, ErrUnknownVersion: 404, ErrNoRuleset: 404, ErrNotEdited: 404, ErrNoVersions: 404,
		ErrForbidden: 403, ErrOutOfScope: 403, ErrBadEdit: 400, ErrBadRequest: 400, ErrNoMessage: 400,
		ErrInvalid: 422, ErrQuota: 429, ErrNotDurable: 507, ErrEditRefused: 409, errors.New("other"): 409,
		&http.MaxBytesError{Limit: 1}: 413, fmt.Errorf("draft d1: %w", ErrNoDraft): 404,
	} {
		if got := Status(err); got != want {
			t.Errorf("Status(%v) = %d, want %d", err, got, want)
		}
	}
}

// TestParseRole: every role's name parses back to it; anything else is
// an error listing the names.
func TestParseRole(t *testing.T) {
	for _, r := range []Role{RoleViewer, RoleEditor, RolePublisher, RoleAdmin} {
		if got, err := ParseRole(r.String()); got != r || err != nil {
			t.Errorf("ParseRole(%q) = %v, %v", r, got, err)
		}
	}
	if _, err := ParseRole("root"); err == nil || !strings.Contains(err.Error(), "viewer, editor, publisher, admin") {
		t.Errorf("ParseRole(root): %v", err)
	}
	if Role(0).String() != "none" {
		t.Errorf("Role(0) is %q", Role(0))
	}
}
