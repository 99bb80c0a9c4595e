package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// phaseSite is a server of locations: a return for www, a forwarding
// docs location whose rewrites redirect, go on to another location or
// stop in it, local answers and a 444.
var phaseSite = []rewrite.HostSpec{{Host: "", Spec: rewrite.Spec{
	Steps: []rewrite.Text{{Src: `if ($host = www.example.com) { return 308 https://example.com$request_uri; }`}},
	Locations: []rewrite.LocationSpec{
		{Match: rewrite.Exact, Path: "/healthz", Steps: `return 200 "ok";`},
		{Match: rewrite.Exact, Path: "/drop", Steps: `return 444;`},
		{Match: rewrite.Exact, Path: "/old", Steps: `return 301 /new;`},
		{Match: rewrite.Prefix, Path: "/", Pass: true},
		{Match: rewrite.Prefix, Path: "/docs/", Pass: true, Upstream: "docs", URI: "/v2/", HasURI: true, Steps: `
rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;
rewrite ^/docs/keep/(.*)$ /kept/$1 break;
rewrite ^/docs/loop$ /docs/loop last;`},
	},
}}}

// phaseSet is an empty rule set carrying phaseSite.
func phaseSet(t *testing.T) *matcher.Set {
	t.Helper()
	// A flat rule: the server's steps run before it, the locations after.
	set, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Exact, From: "/flat", To: "/flat-rule", Status: 301}})
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := rewrite.CompileHosts(phaseSite)
	if err != nil {
		t.Fatal(err)
	}
	set.SetLocations(hosts)
	return set
}

// startPhase runs the server with phaseSite, the default group on def
// and the group "docs" on docs.
func startPhase(t *testing.T, def, docs string) *engine.Server {
	t.Helper()
	set := phaseSet(t)
	up := engine.UpstreamOptions{Pool: testPool(t, upstream.Config{Servers: []string{def}}, nil)}
	docsGroup := &engine.UpstreamOptions{Name: "docs", Pool: testPool(t, upstream.Config{Servers: []string{docs}}, nil)}
	srv := engine.New(engine.Options{Listen: "127.0.0.1:0", EventLoops: 1, Upstream: &up,
		Groups: []*engine.UpstreamOptions{docsGroup}}, set)
	runServer(t, srv)
	return srv
}

// TestLocationPhase drives the server over loopback with raw requests:
// each answer the location phase gives, and the request line each
// upstream gets.
func TestLocationPhase(t *testing.T) {
	t.Parallel()
	def, docs := startRawUpstream(t, answerOK), startRawUpstream(t, answerOK)
	srv := startPhase(t, def.addr, docs.addr)
	type answer struct {
		Status            int
		Location, Body    string
		DefLine, DocsLine string
	}
	tests := []struct {
		req  string
		want answer
	}{
		{"GET /a?b HTTP/1.1\r\nHost: www.example.com\r\n\r\n", answer{Status: 308, Location: "https://example.com/a?b"}},
		{"GET /flat HTTP/1.1\r\nHost: www.example.com\r\n\r\n", answer{Status: 308, Location: "https://example.com/flat"}},
		{"GET /flat HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 301, Location: "/flat-rule"}},
		{"GET /healthz HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 200, Body: "ok"}},
		{"GET /old?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 301, Location: "/new"}},
		{"GET /docs/a/usage HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 302, Location: "/docs/a/usage/overview.html"}},
		{"GET /docs HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 301, Location: "/docs/"}},
		{"GET /docs/loop HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 500}},
		{"GET /x//y?q HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 200, Body: "ok", DefLine: "GET /x//y?q HTTP/1.1"}},
		{"GET /docs/a//b?q HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 200, Body: "ok", DocsLine: "GET /v2/a/b?q HTTP/1.1"}},
		{"GET /docs/keep/a%20b HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 200, Body: "ok", DocsLine: "GET /kept/a%20b HTTP/1.1"}},
		{"GET http://www.example.com/abs?q HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 308, Location: "https://example.com/abs?q"}},
		{"GET http://example.com/x//y?q HTTP/1.1\r\nHost: example.com\r\n\r\n", answer{Status: 200, Body: "ok", DefLine: "GET /x//y?q HTTP/1.1"}},
	}
	for _, tt := range tests {
		c := plainTCP.dial(t, srv)
		io.WriteString(c, tt.req)
		resp, body := readFull(t, bufio.NewReader(c), "GET")
		c.Close()
		got := answer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: body}
		select {
		case h := <-def.heads:
			got.DefLine = requestLine(h)
		default:
		}
		select {
		case h := <-docs.heads:
			got.DocsLine = requestLine(h)
		default:
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q: (-want +got)\n%s", tt.req, d)
		}
	}
	// 444: the connection closes with no answer.
	c := plainTCP.dial(t, srv)
	io.WriteString(c, "GET /drop HTTP/1.1\r\nHost: example.com\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(testutil.Patience))
	if b, err := io.ReadAll(c); err != nil || len(b) != 0 {
		t.Errorf("444: read %q, %v; want the connection closed without an answer", b, err)
	}
}

// TestLocationPhaseH2: over HTTP/2 a local answer is the same, and 444
// resets the stream, as HTTP/1.1 closes the connection.
func TestLocationPhaseH2(t *testing.T) {
	t.Parallel()
	opts := engine.Options{TLS: h2TLSOptions(t)}
	srv := overTLS.startSet(t, opts, phaseSet(t))
	c := h2Client(t)
	url := "https://" + srv.TLSAddr()
	if got := doRequest(t, c, "GET", url+"/healthz", "example.com", ""); got.Status != 200 || got.Body != "ok" || got.Proto != 2 {
		t.Errorf("/healthz over HTTP/2: %+v", got)
	}
	req, _ := http.NewRequest("GET", url+"/drop", nil)
	req.Host = "example.com"
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("/drop over HTTP/2 answered %d; want the stream reset", resp.StatusCode)
	}
}

// TestSwapReleasesPhase: after a reload (Swap), an event loop that
// serves no further request holds nothing of the replaced config's
// servers: the server choice it kept from its last request, and that
// request's Program, go with the swap, so the old config (a map of
// 42,000 keys is tens of MiB) is freed at once rather than at the
// loop's next request. Both loops answer once first.
func TestSwapReleasesPhase(t *testing.T) {
	t.Parallel()
	released := make(chan struct{}, 1)
	srv := startServerWith(t, engine.Options{EventLoops: 2})
	func() {
		set := phaseSet(t)
		runtime.AddCleanup(set.Locations().(*rewrite.Hosts), func(ch chan struct{}) { ch <- struct{}{} }, released)
		srv.Swap(set)
		for range 4 { // connections are spread over the loops
			if head := rawHead(t, srv, "GET /healthz HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n"); !strings.HasPrefix(head, "HTTP/1.1 200 ") {
				t.Fatalf("answer %q, want 200 from the locations", head)
			}
		}
	}()
	srv.Swap(phaseSet(t))
	for range 20 {
		runtime.GC()
		select {
		case <-released:
			return
		default:
			runtime.Gosched()
		}
	}
	t.Error("the replaced config's servers are still held after the swap")
}
