package admin

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"
)

// fakeBackend answers from its fields; the mutex keeps -race quiet when a
// test changes a field while the server goroutines read it.
type fakeBackend struct {
	mu        sync.Mutex
	metrics   string
	notReady  error
	rules     []RuleInfo
	reloadOut string
	reloadErr error
	reloads   int
}

func (f *fakeBackend) WriteMetrics(w io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	io.WriteString(w, f.metrics)
}

func (f *fakeBackend) Ready() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.notReady
}

func (f *fakeBackend) Rules() []RuleInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rules
}

// Explain parses url as the real one would, so hostile input reaches a
// real parser.
func (f *fakeBackend) Explain(raw string, req ExplainRequest) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("cannot parse url %q: %w", raw, err)
	}
	if u.Host == "" {
		return "", errors.New("url has no host")
	}
	out := "host " + u.Host + ", path " + u.Path + ": rule exact /old -> /new (rules.toml:3)"
	for _, h := range req.Headers {
		out += "\nwith " + h
	}
	if req.Client != "" {
		out += "\nfrom " + req.Client
	}
	return out, nil
}

func (f *fakeBackend) Reload() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reloads++
	return f.reloadOut, f.reloadErr
}

func (f *fakeBackend) set(fn func(f *fakeBackend)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func newFake() *fakeBackend {
	return &fakeBackend{
		metrics: "# TYPE redirectd_requests_total counter\nredirectd_requests_total 7\n",
		rules: []RuleInfo{
			{Kind: "exact", From: "/old", To: "/new", Status: 301, Source: "rules.toml:3", Hits: 5},
			{Kind: "regex", From: `^/a/(\d+)&x$`, To: "/b/$1", Status: 308, Host: "example.com", Source: "rules.toml:7"},
		},
		reloadOut: "3 rules (1 added, 0 removed)",
	}
}
