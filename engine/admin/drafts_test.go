package admin

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// fakeEditor is a Backend and Editor whose Upload reads the whole body,
// as the real one does, and whose errors are set by the test.
type fakeEditor struct {
	*fakeBackend
	uploaded int
	err      error
}

func (f *fakeEditor) NewDraft(author string) (edit.Draft, error) { return edit.Draft{ID: "d1"}, f.err }
func (f *fakeEditor) Drafts(edit.Scope) []edit.Draft             { return nil }
func (f *fakeEditor) Draft(id string, _ edit.Scope, limit, offset int) (*edit.DraftView, error) {
	return &edit.DraftView{ID: fmt.Sprintf("%s %d %d", id, limit, offset)}, f.err
}
func (f *fakeEditor) AddEntry(string, string, edit.Entry, edit.Scope) error { return f.err }
func (f *fakeEditor) Upload(_, _, _ string, body io.Reader, _ edit.Scope) (int, error) {
	b, err := io.ReadAll(body)
	f.uploaded = len(b)
	if err != nil {
		return 0, err
	}
	return strings.Count(string(b), "\n"), f.err
}
func (f *fakeEditor) DiscardDraft(string, edit.Scope) error               { return f.err }
func (f *fakeEditor) Promote(string, edit.Audit, edit.Scope) (int, error) { return 7, f.err }
func (f *fakeEditor) Ruleset() (edit.Ruleset, error)                      { return edit.Ruleset{}, edit.ErrNoRuleset }

// TestDraftAnswers checks the answers the endpoints make of bodies and
// of an Editor's errors: an upload past MaxUploadBytes is a 413, a body
// that is not one JSON object a 400, a promote without a message a 400,
// each error its status, and ?limit and ?offset reach the Editor.
func TestDraftAnswers(t *testing.T) {
	t.Parallel()
	f := &fakeEditor{fakeBackend: newFake()}
	s := start(t, Options{MaxUploadBytes: 100}, f)
	do := func(method, path, ctype, body string) (int, string) {
		req, _ := http.NewRequest(method, "http://"+s.Addr()+path, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, tt := range []struct {
		name, method, path, ctype, body string
		err                             error
		want                            int
		wantBody                        string
	}{
		{"upload within bound", "POST", "/drafts/d1/upload", "text/csv", "/a,/b\n/c,/d\n", nil, 201, `"entries": 2`},
		{"upload past bound", "POST", "/drafts/d1/upload", "text/csv", strings.Repeat("/a,/b\n", 30), nil, 413, "max_upload_bytes"},
		{"entry not JSON", "POST", "/drafts/d1/entries", "application/json", "op=add", nil, 400, "JSON object"},
		{"two entries", "POST", "/drafts/d1/entries", "application/json", `{"op":"add"} {"op":"add"}`, nil, 400, "more than one"},
		{"unknown field", "POST", "/drafts/d1/entries", "application/json", `{"op":"add","form":"/a"}`, nil, 400, "form"},
		{"promote no message", "POST", "/drafts/d1/promote", "application/json", `{"message":""}`, nil, 400, "missing message"},
		{"promote", "POST", "/drafts/d1/promote", "application/json", `{"message":"m"}`, nil, 200, `"version": 7`},
		{"page", "GET", "/drafts/d1?limit=5&offset=10", "", "", nil, 200, `"d1 5 10"`},
		{"default page", "GET", "/drafts/d1", "", "", nil, 200, `"d1 100 0"`},
		{"bad limit", "GET", "/drafts/d1?limit=-1", "", "", nil, 400, "limit"},
		{"unknown query", "GET", "/drafts/d1?limt=5", "", "", nil, 400, "limt"},
		{"no draft", "DELETE", "/drafts/d9", "", "", fmt.Errorf("draft: %w", edit.ErrNoDraft), 404, "no such draft"},
		{"conflict", "POST", "/drafts/d1/promote", "application/json", `{"message":"m"}`, fmt.Errorf("%w: base 1, serving 2", edit.ErrEditRefused), 409, "base 1, serving 2"},
		{"invalid", "POST", "/drafts/d1/promote", "application/json", `{"message":"m"}`, fmt.Errorf("%w: entry add /a", edit.ErrInvalid), 422, "entry add /a"},
		{"out of scope", "POST", "/drafts/d1/entries", "application/json", `{"op":"add"}`, fmt.Errorf("%w: x.com", edit.ErrOutOfScope), 403, "x.com"},
		{"bad edit", "POST", "/drafts/d1/entries", "application/json", `{"op":"add"}`, fmt.Errorf("%w: from", edit.ErrBadEdit), 400, "from"},
		{"no ruleset", "GET", "/ruleset", "", "", nil, 404, "not edited"},
		{"made", "POST", "/drafts", "", "", nil, 201, `"id": "d1"`},
	} {
		f.err = tt.err
		code, body := do(tt.method, tt.path, tt.ctype, tt.body)
		if code != tt.want || !strings.Contains(body, tt.wantBody) {
			t.Errorf("%s: %d %q, want %d holding %q", tt.name, code, body, tt.want, tt.wantBody)
		}
	}
	if f.uploaded > 100 {
		t.Errorf("the edit.Editor read %d bytes of an upload bounded at 100", f.uploaded)
	}
}
