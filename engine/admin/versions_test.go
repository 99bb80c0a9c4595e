package admin

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// fakeVersions is a Backend that keeps versions: a rollback to "aaa" works,
// to "bad" fails to load, to anything else is unknown.
type fakeVersions struct {
	*fakeBackend
	mu    sync.Mutex
	calls []string
}

func (f *fakeVersions) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeVersions) Versions() []edit.Version {
	return []edit.Version{{Hash: "aaa", Source: "http://s/x.tar.gz", ETag: `"1"`, Rules: 2, Serving: true, Kept: true}}
}

func (f *fakeVersions) Diff(from, to string, limit int) (*edit.VersionDiff, error) {
	f.record(fmt.Sprintf("diff %s %s %d", from, to, limit))
	if from != "aaa" {
		return nil, fmt.Errorf("version %q: %w", from, edit.ErrUnknownVersion)
	}
	return &edit.VersionDiff{From: from, To: to, AddedCount: 1, Changes: edit.Changes[edit.Rule]{
		Added:   []edit.Rule{{Kind: "exact", From: "/a", To: "/b", Status: 301, Source: "r.toml:1"}},
		Removed: []edit.Rule{}, Changed: []edit.Change[edit.Rule]{}}}, nil
}

func (f *fakeVersions) Rollback(to string, a edit.Audit) (string, error) {
	f.record("rollback " + to + " by " + a.Author)
	switch to {
	case "aaa":
		return "serving aaa", nil
	case "bad":
		return "", errors.New("cannot roll back to bad: r.toml:3: status: 200")
	}
	return "", fmt.Errorf("version %q: %w", to, edit.ErrUnknownVersion)
}

func (f *fakeVersions) Unpin(a edit.Audit) (string, error) {
	f.record("unpin by " + a.Author)
	return "", errors.New("nothing is pinned")
}

func TestVersionEndpoints(t *testing.T) {
	fv := &fakeVersions{fakeBackend: newFake()}
	base := "http://" + start(t, Options{}, fv).Addr()
	tests := []struct {
		method, path string
		status       int
		body         string // a part of it
	}{
		{"GET", "/versions", 200, `"hash": "aaa"`},
		{"GET", "/versions/diff?from=aaa&to=bbb", 200, `"added_count": 1`},
		{"GET", "/versions/diff?from=aaa&limit=5", 200, `"to": ""`},
		{"GET", "/versions/diff?from=zzz", 404, "no such version"},
		{"GET", "/versions/diff", 400, "missing from"},
		{"GET", "/versions/diff?from=aaa&limit=-1", 400, "cannot parse limit"},
		{"GET", "/versions/diff?from=aaa&too=bbb", 400, `unexpected query parameter "too"`},
		{"GET", "/versions/diff?from=aaa&from=bbb", 400, "given 2 times"},
		{"POST", "/versions/rollback?to=aaa", 200, "serving aaa"},
		{"POST", "/versions/rollback?to=bad", 409, "status: 200"},
		{"POST", "/versions/rollback?to=nope", 404, "no such version"},
		{"POST", "/versions/rollback?to=aaa&x=1", 400, "unexpected query parameter"},
		{"POST", "/versions/unpin", 409, "nothing is pinned"},
		{"GET", "/versions/rollback?to=aaa", 405, ""},
		{"POST", "/versions", 405, ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			got := do(t, tt.method, base+tt.path, nil)
			if got.Status != tt.status || !strings.Contains(got.Body, tt.body) {
				t.Errorf("%d %q, want %d with %q", got.Status, got.Body, tt.status, tt.body)
			}
		})
	}
	// Each change is given its caller, for the audit log: "local" on
	// loopback without tokens.
	want := []string{"diff aaa bbb 1000", "diff aaa  5", "diff zzz  1000", "rollback aaa by local", "rollback bad by local", "rollback nope by local", "unpin by local"}
	if diff := cmp.Diff(want, fv.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// TestVersionEndpointsGuarded checks the admin checks hold for the
// version endpoints: the token, and a browser's cross-origin POST.
func TestVersionEndpointsGuarded(t *testing.T) {
	fv := &fakeVersions{fakeBackend: newFake()}
	base := "http://" + start(t, Options{Token: "t0ken"}, fv).Addr()
	for _, p := range []string{"GET /versions", "GET /versions/diff?from=aaa", "POST /versions/rollback?to=aaa", "POST /versions/unpin"} {
		method, path, _ := strings.Cut(p, " ")
		if got := do(t, method, base+path, nil); got.Status != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", p, got.Status)
		}
	}
	cross := http.Header{"Authorization": {"Bearer t0ken"}, "Sec-Fetch-Site": {"cross-site"}}
	if got := do(t, "POST", base+"/versions/rollback?to=aaa", cross); got.Status != http.StatusForbidden {
		t.Errorf("a cross-site rollback: %d, want 403", got.Status)
	}
	if len(fv.calls) != 0 {
		t.Errorf("refused requests reached the backend: %v", fv.calls)
	}
}

// TestNoVersions: a Backend that keeps no versions has no such endpoints.
func TestNoVersions(t *testing.T) {
	base := "http://" + start(t, Options{}, newFake()).Addr()
	if got := do(t, "GET", base+"/versions", nil); got.Status != http.StatusNotFound {
		t.Errorf("/versions without a Versioner: %d, want 404", got.Status)
	}
}
