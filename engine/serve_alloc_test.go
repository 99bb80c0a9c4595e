//go:build !race

package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/accesslog"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/matcher"
)

// TestServeAllocs checks the hot-path contract: parsing a request,
// matching it and writing its answer allocate nothing once the loop's
// buffers have grown. (The race detector allocates, hence the build tag.)
func TestServeAllocs(t *testing.T) {
	f := newServeFixture(t)
	for _, req := range []string{
		"GET " + rules.ExactHit + "?utm=1 HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + rules.PrefixHit + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + rules.LastRegex + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + rules.Miss + " HTTP/1.1\r\nHost: a\r\n\r\n",
		rules.BrowserRequest,
	} {
		buf := []byte(req)
		allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) })
		if allocs != 0 {
			t.Errorf("%q: %v allocations per request, want 0", req[:30], allocs)
		}
	}
}

// TestServeAllocsWithAccessLog checks that the access log keeps the hot
// path free of allocations: each loop formats into its own buffer, in
// either built-in format or a layout of $variables that reads a header
// field of its own.
func TestServeAllocsWithAccessLog(t *testing.T) {
	layout, err := accesslog.ParseFormat(`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $host $uri $request_time "$http_x_request_id"`)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []accesslog.Format{accesslog.Combined, accesslog.JSON, layout} {
		alog, err := accesslog.Open(filepath.Join(t.TempDir(), "access.log"), format)
		if err != nil {
			t.Fatal(err)
		}
		defer alog.Close()
		f := newServeFixtureWith(t, Options{AccessLog: alog})
		for _, req := range []string{
			"GET " + rules.ExactHit + "?utm=1 HTTP/1.1\r\nHost: a\r\nX-Request-Id: 42\r\n\r\n",
			"GET " + rules.Miss + " HTTP/1.1\r\nHost: a\r\n\r\n",
			rules.BrowserRequest,
		} {
			buf := []byte(req)
			allocs := testing.AllocsPerRun(100, func() {
				f.serve(t, buf)
				f.conn.loop.alog.Flush()
			})
			if allocs != 0 {
				t.Errorf("%.20s: %q: %v allocations per request with the access log on, want 0", format, req[:30], allocs)
			}
		}
	}
}

// TestServeAnswersAllocs is TestServeAllocs for a redirect with headers of
// its own, a 410, a HEAD 451 of a regex and a miss with [server] headers.
func TestServeAnswersAllocs(t *testing.T) {
	f := newAnswersFixture(t)
	for _, c := range answerCases {
		buf := []byte(c.req)
		allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) })
		if allocs != 0 {
			t.Errorf("%s: %v allocations per request, want 0", c.name, allocs)
		}
	}
}

// TestServeAllocsNginxURI checks the same contract for rules that
// compare nginx's $uri: building it, matching on it, writing a Location
// from its groups, and answering a path nginx refuses with 400.
func TestServeAllocsNginxURI(t *testing.T) {
	b := matcher.NewBuilder(matcher.DefaultLimits)
	b.SetURI(matcher.URI{Nginx: true})
	for _, r := range rules.Rules(rules.Reference) {
		if err := b.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	set, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{}, set)
	f := &serveFixture{srv: srv, conn: &conn{loop: newLoop(srv, nil)}}
	for _, req := range []string{
		"GET /" + rules.ExactHit + "?utm=1 HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /x/.." + rules.PrefixHit + " HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + rules.LastRegex + "%2F%20+ HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET " + rules.Miss + " HTTP/1.1\r\nHost: a\r\n\r\n",
	} {
		buf := []byte(req)
		allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) })
		if allocs != 0 {
			t.Errorf("%q: %v allocations per request, want 0", req[:30], allocs)
		}
	}
	bad := []byte("GET /a/../../x HTTP/1.1\r\nHost: a\r\n\r\n")
	allocs := testing.AllocsPerRun(100, func() {
		if _, res := f.conn.serve(bad, f.srv); res == keepOpen {
			t.Fatal("a path nginx refuses left the connection open")
		}
	})
	if allocs != 0 {
		t.Errorf("400 for a path nginx refuses: %v allocations per request, want 0", allocs)
	}
	// Under the https redirect, which nginx's 400 comes before.
	hsrv := New(Options{HTTPSRedirect: true}, set)
	hf := &serveFixture{srv: hsrv, conn: &conn{loop: newLoop(hsrv, nil)}}
	redirect := []byte("GET //x/%2E/y%2Fz HTTP/1.1\r\nHost: a\r\n\r\n")
	if allocs := testing.AllocsPerRun(100, func() { hf.serve(t, redirect) }); allocs != 0 {
		t.Errorf("https redirect on $uri rules: %v allocations per request, want 0", allocs)
	}
	if got := string(hf.conn.loop.out); !strings.HasPrefix(got, "HTTP/1.1 301") {
		t.Errorf("https redirect on $uri rules: %q", got)
	}
	allocs = testing.AllocsPerRun(100, func() {
		if _, res := hf.conn.serve(bad, hf.srv); res == keepOpen {
			t.Fatal("a path nginx refuses left the connection open under the https redirect")
		}
	})
	if allocs != 0 {
		t.Errorf("400 under the https redirect: %v allocations per request, want 0", allocs)
	}
}
