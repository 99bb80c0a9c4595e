package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// TestNginxURIServe runs a server whose rules compare nginx's $uri and
// sends it raw requests: "//", "/./", "/x/../" and %2F variants reach
// the prefix and regex rules, a request_uri rule sees the target as
// sent, and a path nginx answers 400 gets 400 and a closed connection.
func TestNginxURIServe(t *testing.T) {
	srv := startServer(t)
	b := matcher.NewBuilder(matcher.DefaultLimits)
	b.SetURI(matcher.URI{Nginx: true})
	for i, r := range []matcher.Rule{
		{Kind: matcher.Exact, From: "/old", To: "/new", Status: 301},
		{Kind: matcher.Prefix, From: "/js/", To: "/assets/js/", Status: 301},
		{Kind: matcher.Regex, From: `^/docs/(.*)$`, To: "/d/$1", Status: 302},
		{Kind: matcher.Exact, From: "/raw%2Fx", To: "/raw", Status: 301, RequestURI: true},
	} {
		r.File, r.Line = "uri.toml", i+1
		if err := b.Add(&r); err != nil {
			t.Fatal(err)
		}
	}
	set, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	type result struct {
		Status   int
		Location string
		Closed   bool
	}
	got := map[string]result{}
	targets := []string{"//old", "/x/../old", "/js//x", "/./js/x", "/js%2Fx", "/docs/a%20b+c", "/raw%2Fx",
		"/a/../../x", "/a%zz", "/a%00", "/%2e%2e/old", "/missing"}
	for _, target := range targets {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(testutil.Patience))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: example.com\r\n\r\n", target)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		io.Copy(io.Discard, resp.Body)
		// A closed connection reads EOF at once; an open one would wait
		// out the deadline, so ask for another answer first.
		fmt.Fprintf(c, "GET /old HTTP/1.1\r\nHost: example.com\r\n\r\n")
		_, err = http.ReadResponse(br, nil)
		got[target] = result{resp.StatusCode, resp.Header.Get("Location"), err != nil}
		c.Close()
	}
	want := map[string]result{
		"//old":         {301, "/new", false},
		"/x/../old":     {301, "/new", false},
		"/js//x":        {301, "/assets/js/x", false},
		"/./js/x":       {301, "/assets/js/x", false},
		"/js%2Fx":       {301, "/assets/js/x", false},
		"/docs/a%20b+c": {302, "/d/a%20b+c", false},
		"/raw%2Fx":      {301, "/raw", false},
		"/a/../../x":    {400, "", true},
		"/a%zz":         {400, "", true},
		"/a%00":         {400, "", true},
		"/%2e%2e/old":   {400, "", true},
		"/missing":      {404, "", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// TestNginxURIRoutes: with rules on nginx's $uri, a miss is routed by its
// $uri too, as nginx's locations choose: "//blog/x" and "/blog%2Fx" go
// to the /blog/ group.
func TestNginxURIRoutes(t *testing.T) {
	g := map[string]*engine.UpstreamOptions{}
	for _, n := range []string{"default", "blog"} {
		g[n] = newGroup(t, n, upstream.Config{}, engine.UpstreamOptions{})
	}
	srv := startServerWith(t, engine.Options{Upstream: g["default"], Routes: []engine.UpstreamRoute{{Prefix: "/blog/", Group: g["blog"]}}})
	b := matcher.NewBuilder(matcher.DefaultLimits)
	b.SetURI(matcher.URI{Nginx: true})
	set, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	for path, want := range map[string]string{"/blog/x": "blog", "//blog/x": "blog", "/blog%2Fx": "blog", "/x/../blog/y": "blog", "/blogx": "default"} {
		if status, who := askWho(t, srv, "example.com", path); status != 200 || who != want {
			t.Errorf("%s went to %q (status %d), want %q", path, who, status, want)
		}
	}
}

// TestNginxURIBeforeHTTPSRedirect: with the https redirect on, a path
// nginx refuses still gets 400 (nginx answers it before its server's
// `return 301 https://...`), and any other path the redirect.
func TestNginxURIBeforeHTTPSRedirect(t *testing.T) {
	srv := startServerWith(t, engine.Options{HTTPSRedirect: true})
	b := matcher.NewBuilder(matcher.DefaultLimits)
	b.SetURI(matcher.URI{Nginx: true})
	set, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	for target, want := range map[string]int{"/a/../../x": 400, "/a%zz": 400, "//a/./b": 301} {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(testutil.Patience))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: example.com\r\n\r\n", target)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", target, resp.StatusCode, want)
		}
	}
}

// TestNginxURIBeforeServerSteps: a path nginx refuses gets 400 before a
// host's [[server_rewrite]] steps, as nginx answers it before its
// server's rewrite phase; any other path gets the steps' answer.
func TestNginxURIBeforeServerSteps(t *testing.T) {
	srv := startServerWith(t, engine.Options{})
	b := matcher.NewBuilder(matcher.DefaultLimits)
	b.SetURI(matcher.URI{Nginx: true})
	set, err := b.Set()
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := rewrite.CompileHosts([]rewrite.HostSpec{{Host: "example.com", Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: "return 301 https://new.example$request_uri;"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	set.SetLocations(hosts)
	srv.Swap(set)
	for target, want := range map[string]int{"/a/../../x": 400, "/a%00": 400, "/..": 400, "//a/./b": 301, "/x/../y": 301} {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(testutil.Patience))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: example.com\r\n\r\n", target)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", target, resp.StatusCode, want)
		}
	}
}
