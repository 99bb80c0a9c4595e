package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

// fakeBackend answers from its fields, as admin's own tests' fake does;
// it keeps versions and misses too.
type fakeBackend struct {
	mu       sync.Mutex
	rules    []admin.RuleInfo
	versions []edit.Version
	misses   []admin.MissInfo
	metrics  string
	rolled   string
	// locations are what Locations lists (admin.LocationLister).
	locations []admin.RuleInfo
}

func (f *fakeBackend) Locations() []admin.RuleInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.locations
}

func (f *fakeBackend) WriteMetrics(w io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	io.WriteString(w, f.metrics)
}

func (f *fakeBackend) Ready() error { return nil }

func (f *fakeBackend) Rules() []admin.RuleInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rules
}

func (f *fakeBackend) Explain(raw string, req admin.ExplainRequest) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("cannot explain %q: give a URL with a host", raw)
	}
	return fmt.Sprintf("host %s path %s headers %q client %q", u.Host, u.Path, req.Headers, req.Client), nil
}

func (f *fakeBackend) Reload() (string, error) { return "reloaded", nil }

func (f *fakeBackend) Versions() []edit.Version {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.versions
}

func (f *fakeBackend) Diff(from, to string, limit int) (*edit.VersionDiff, error) {
	if from != "aaaaaaaaaaaa" {
		return nil, edit.ErrUnknownVersion
	}
	return &edit.VersionDiff{From: from, To: "bbbbbbbbbbbb", AddedCount: 2,
		Changes: edit.Changes[edit.Rule]{Added: []edit.Rule{{Kind: "exact", Host: "a.example", From: "/a-new", To: "/x"}, {Kind: "exact", Host: "b.example", From: "/b-new", To: "/y"}}}}, nil
}

func (f *fakeBackend) Rollback(to string, _ edit.Audit) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if to != "aaaaaaaaaaaa" {
		return "", edit.ErrUnknownVersion
	}
	f.rolled = to
	return "serving " + to + ", pinned", nil
}

func (f *fakeBackend) Unpin(edit.Audit) (string, error) { return "", errors.New("not pinned") }

func (f *fakeBackend) Misses(_ context.Context, host string, limit int) ([]admin.MissInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []admin.MissInfo
	for _, m := range f.misses {
		if host == "" || m.Host == host {
			out = append(out, m)
		}
	}
	return out, nil
}

func newFake() *fakeBackend {
	return &fakeBackend{
		rules: []admin.RuleInfo{
			{Kind: "exact", Host: "a.example", From: "/old-a", To: "/new-a", Status: 301, Source: "r.toml:1", Hits: 3},
			{Kind: "exact", Host: "b.example", From: "/old-b", To: "/new-b", Status: 301, Source: "r.toml:5"},
			{Kind: "prefix", From: "/docs/", To: "https://docs.example/", Status: 302, Source: "r.toml:9"},
		},
		versions: []edit.Version{
			{Hash: "bbbbbbbbbbbb", Serving: true, Kept: true, Rules: 3},
			{Hash: "aaaaaaaaaaaa", Kept: true, Rules: 2},
		},
		misses: []admin.MissInfo{
			{Host: "a.example", Path: "/gone-a", Count: 9},
			{Host: "b.example", Path: "/gone-b", Count: 7},
		},
		locations: []admin.RuleInfo{
			{Kind: "location", Host: "a.example", From: "/shop/", LocationInfo: &admin.LocationInfo{Location: "^~ /shop/", Steps: "rewrite ^/shop/(.*)$ /store/$1 permanent;"}, Source: "r.toml:20"},
			{Kind: "location", Host: "b.example", From: "/b-loc/", LocationInfo: &admin.LocationInfo{Location: "/b-loc/"}, To: "upstream default", Source: "r.toml:30"},
		},
		metrics: "redirectd_requests_total{outcome=\"redirect\",status=\"301\"} 10\nredirectd_requests_total{outcome=\"miss\",status=\"404\"} 4\n",
	}
}
