package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// newGroup starts an origin that answers with its name (X-Upstream) and
// returns the group forwarding to it.
func newGroup(t *testing.T, name string, cfg upstream.Config, up engine.UpstreamOptions) *engine.UpstreamOptions {
	t.Helper()
	return newGroupLog(t, name, cfg, up, nil)
}

// newGroupLog is newGroup with the pool logging to log.
func newGroupLog(t *testing.T, name string, cfg upstream.Config, up engine.UpstreamOptions, log *slog.Logger) *engine.UpstreamOptions {
	t.Helper()
	if len(cfg.Servers) == 0 && len(cfg.Targets) == 0 {
		cfg.Servers = []string{startUpstream(t, echoUpstream(name))}
	}
	cfg.Group = name
	up.Name, up.Pool = name, testPool(t, cfg, log)
	return &up
}

// askWho sends GET path with Host host on a new connection and returns
// the status and the X-Upstream of the answer.
func askWho(t *testing.T, srv *engine.Server, host, path string) (int, string) {
	t.Helper()
	c := dial(t, srv)
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host)
	resp, _ := readFull(t, bufio.NewReader(c), "GET")
	return resp.StatusCode, resp.Header.Get("X-Upstream")
}

// TestUpstreamRouteSelection sends requests for each kind of host and
// prefix through the real server to origins that say their name: the
// most specific host decides (exact, the longest wildcard, any), then
// the longest prefix, and no route leaves the default group, or a 404
// without one.
func TestUpstreamRouteSelection(t *testing.T) {
	t.Parallel()
	g := map[string]*engine.UpstreamOptions{}
	for _, n := range []string{"default", "blog", "www", "wild", "deep", "api", "apiv2"} {
		g[n] = newGroup(t, n, upstream.Config{}, engine.UpstreamOptions{})
	}
	routes := []engine.UpstreamRoute{
		{Host: "www.example.com", Prefix: "/blog/", Group: g["blog"]},
		{Host: "www.example.com", Prefix: "/", Group: g["www"]},
		{Host: "*.example.com", Prefix: "/", Group: g["wild"]},
		{Host: "*.a.example.com", Prefix: "/x/", Group: g["deep"]},
		{Host: "", Prefix: "/api/", Group: g["api"]},
		{Host: "", Prefix: "/api/v2/", Group: g["apiv2"]},
	}
	tests := []struct{ host, path, want string }{
		{"www.example.com", "/blog/post", "blog"},
		{"WWW.Example.COM:8080", "/blog/post", "blog"},
		{"www.example.com.", "/blog/", "blog"},
		{"www.example.com", "/%62log/post", "blog"}, // as the rules see it
		{"www.example.com", "/blog%2Fpost", "www"},  // an encoded slash is not a slash
		{"www.example.com", "/blog", "www"},         // "/blog" is not under "/blog/"
		{"www.example.com", "/api/x", "www"},        // the exact host's "/" wins over any host's /api/
		{"shop.example.com", "/anything", "wild"},
		{"b.a.example.com", "/x/1", "deep"},
		{"b.a.example.com", "/y", "wild"}, // no prefix of *.a.example.com: the next wildcard
		{"example.com", "/api/v1", "api"},
		{"example.com", "/api/v2/users", "apiv2"},
		{"other.test", "/api/v2", "api"},
		{"other.test", "/miss", "default"},
		{"example.com", "/", "default"},
	}
	srv := startServerWith(t, engine.Options{Upstream: g["default"], Routes: routes})
	for _, tt := range tests {
		t.Run(tt.host+tt.path, func(t *testing.T) {
			status, who := askWho(t, srv, tt.host, tt.path)
			if status != 200 || who != tt.want {
				t.Errorf("%s%s went to %q (status %d), want %q", tt.host, tt.path, who, status, tt.want)
			}
		})
	}
	// A rule still answers before any route.
	if status, who := askWho(t, srv, "www.example.com", "/old"); status != 301 || who != "" {
		t.Errorf("/old: %d from %q, want the rule's 301", status, who)
	}

	t.Run("without a default group", func(t *testing.T) {
		srv := startServerWith(t, engine.Options{Routes: routes})
		if status, who := askWho(t, srv, "www.example.com", "/blog/a"); status != 200 || who != "blog" {
			t.Errorf("routed: %d from %q, want 200 from blog", status, who)
		}
		if status, who := askWho(t, srv, "other.test", "/miss"); status != 404 || who != "" {
			t.Errorf("unrouted: %d from %q, want 404", status, who)
		}
		// Forwards says so without a request, for the console's samples.
		if !srv.Forwards("www.example.com", "/blog/a") || srv.Forwards("other.test", "/miss") {
			t.Errorf("Forwards: routed %v, unrouted %v; want true, false",
				srv.Forwards("www.example.com", "/blog/a"), srv.Forwards("other.test", "/miss"))
		}
	})

	t.Run("SetUpstreams", func(t *testing.T) {
		srv := startServerWith(t, engine.Options{Upstream: g["default"]})
		if _, who := askWho(t, srv, "www.example.com", "/blog/a"); who != "default" {
			t.Fatalf("before: %q", who)
		}
		srv.SetUpstreams(g["www"], routes[:1])
		for path, want := range map[string]string{"/blog/a": "blog", "/other": "www"} {
			if _, who := askWho(t, srv, "www.example.com", path); who != want {
				t.Errorf("after SetUpstreams, %s went to %q, want %q", path, who, want)
			}
		}
		m := metricsOf(srv)
		if !strings.Contains(m, `redirectd_upstream_requests_total{group="blog",server="`) ||
			!strings.Contains(m, `redirectd_upstream_server_up{group="www",server="`) {
			t.Errorf("the new groups' metrics are missing:\n%s", m)
		}
	})
}

// TestUpstreamGroupsIndependent: two groups with different pool sizes
// and pool_wait_timeout. With the one pooled connection of "small" busy,
// a request for it gets 503 with Retry-After after its own 200 ms wait,
// counted under its group, while "big" answers at once.
func TestUpstreamGroupsIndependent(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	held := make(chan struct{}, 1)
	slow := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small/hold" {
			held <- struct{}{}
			<-release
		}
		w.Header().Set("X-Upstream", "small")
	}))
	small := newGroup(t, "small", upstream.Config{Servers: []string{slow}, MaxConnsPerServer: 1, PoolWaitTimeout: 200 * time.Millisecond}, engine.UpstreamOptions{})
	// big's wait is long, so that a 503 after small's 200 ms cannot be
	// big's, however slow the machine.
	big := newGroup(t, "big", upstream.Config{MaxConnsPerServer: 8, PoolWaitTimeout: time.Minute}, engine.UpstreamOptions{})
	srv := startServerWith(t, engine.Options{Upstream: big, Routes: []engine.UpstreamRoute{{Prefix: "/small/", Group: small}}})

	hold := dial(t, srv)
	io.WriteString(hold, "GET /small/hold HTTP/1.1\r\nHost: a\r\n\r\n")
	select {
	case <-held: // small's one connection is busy
	case <-time.After(30 * time.Second):
		t.Fatal("the held request never reached the origin")
	}
	start := time.Now()
	c := dial(t, srv)
	io.WriteString(c, "GET /small/next HTTP/1.1\r\nHost: a\r\n\r\n")
	resp, body := readFull(t, bufio.NewReader(c), "GET")
	waited := time.Since(start)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !strings.Contains(body, "busy") {
		t.Errorf("small's second request: %d %q %q, want 503 with Retry-After: 1", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if waited < 150*time.Millisecond || waited > 30*time.Second {
		t.Errorf("503 after %v, want about small's pool_wait_timeout of 200ms", waited)
	}
	for i := range 3 {
		if status, who := askWho(t, srv, "a", fmt.Sprintf("/big/%d", i)); status != 200 || who != "big" {
			t.Errorf("big while small is full: %d from %q", status, who)
		}
	}
	m := metricsOf(srv)
	want := map[string]string{
		`redirectd_upstream_requests_total{group="small",server="` + slow + `",result="pool_full"}`:                     "1",
		`redirectd_upstream_requests_total{group="big",server="` + big.Pool.Servers()[0].Addr + `",result="pool_full"}`: "0",
		`redirectd_upstream_requests_total{group="big",server="` + big.Pool.Servers()[0].Addr + `",result="answered"}`:  "3",
	}
	for name, w := range want {
		if got := metricValue(m, name); got != w {
			t.Errorf("%s = %q, want %s", name, got, w)
		}
	}
	free()
	if resp, _ := readFull(t, bufio.NewReader(hold), "GET"); resp.StatusCode != 200 {
		t.Errorf("held request: %d", resp.StatusCode)
	}
}

// wsEcho answers a WebSocket upgrade with 101, its name in X-Upstream and
// the Host it got in X-Host, then echoes what comes, prefixed "echo:".
func wsEcho(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" {
			http.Error(w, "not an upgrade", 400)
			return
		}
		c, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintf(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Upstream: %s\r\nX-Host: %s\r\n\r\n", name, r.Host)
		buf := make([]byte, 64)
		for {
			n, err := brw.Read(buf)
			if err != nil {
				return
			}
			c.Write(append([]byte("echo:"), buf[:n]...))
		}
	}
}

// TestUpstreamGroupWebSocket: an upgrade routed to a group other than
// the default goes to that group's origin, with the group's literal
// Host, and its tunnel carries bytes both ways.
func TestUpstreamGroupWebSocket(t *testing.T) {
	t.Parallel()
	ws := startUpstream(t, wsEcho("chat"))
	chat := newGroup(t, "chat", upstream.Config{Servers: []string{ws}}, engine.UpstreamOptions{HostHeader: "chat.internal"})
	def := newGroup(t, "default", upstream.Config{}, engine.UpstreamOptions{})
	srv := startServerWith(t, engine.Options{Upstream: def, Routes: []engine.UpstreamRoute{{Host: "www.example.com", Prefix: "/ws/", Group: chat}}})
	c := dial(t, srv)
	io.WriteString(c, "GET /ws/room HTTP/1.1\r\nHost: www.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 101 || resp.Header.Get("X-Upstream") != "chat" || resp.Header.Get("X-Host") != "chat.internal" {
		t.Fatalf("upgrade: %d from %q with Host %q, want 101 from chat with chat.internal", resp.StatusCode, resp.Header.Get("X-Upstream"), resp.Header.Get("X-Host"))
	}
	io.WriteString(c, "hello")
	c.SetReadDeadline(time.Now().Add(testutil.Patience))
	got := make([]byte, len("echo:hello"))
	if _, err := io.ReadFull(br, got); err != nil || string(got) != "echo:hello" {
		t.Errorf("through the tunnel: %q, %v", got, err)
	}
}

// TestUpstreamGroupHostHeader: a group's literal host_header replaces
// the client's Host; another group's "preserve" keeps it.
func TestUpstreamGroupHostHeader(t *testing.T) {
	t.Parallel()
	lit := newGroup(t, "lit", upstream.Config{}, engine.UpstreamOptions{HostHeader: "blog.example.net"})
	def := newGroup(t, "default", upstream.Config{}, engine.UpstreamOptions{})
	srv := startServerWith(t, engine.Options{Upstream: def, Routes: []engine.UpstreamRoute{{Prefix: "/blog/", Group: lit}}})
	for path, want := range map[string]string{"/blog/a": "Host: blog.example.net", "/other": "Host: www.example.com"} {
		c := dial(t, srv)
		io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: www.example.com\r\nConnection: close\r\n\r\n")
		_, body := readFull(t, bufio.NewReader(c), "GET")
		c.Close()
		if !strings.Contains(body, "\n"+want+"\n") {
			t.Errorf("%s: the origin saw\n%s\nwant %q", path, body, want)
		}
	}
}
