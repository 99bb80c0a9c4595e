package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// modelSite has a server chosen by a regex name whose capture its steps
// read, a map, and an error page that redirects.
var modelSite = []rewrite.HostSpec{
	{Host: `~^(?<shop>[a-z]+)\.shop\.test$`, Spec: rewrite.Spec{Locations: []rewrite.LocationSpec{
		{Match: rewrite.Prefix, Path: "/", Steps: `return 302 https://shop.test/$shop$uri;`},
	}}},
	{Host: "*.example.com", Default: true, Spec: rewrite.Spec{
		Steps: []rewrite.Text{{Src: "error_page 404 @gone;"}},
		Maps:  []rewrite.MapSpec{{Source: "$uri", Variable: "moved", Entries: "/old /new;\n~^/blog/(\\d+)$ /archive/$1;"}},
		Locations: []rewrite.LocationSpec{
			{Match: rewrite.Named, Path: "gone", Steps: `return 301 /search?q=$uri;`},
			{Match: rewrite.Prefix, Path: "/", Pass: true, Steps: `if ($moved) { return 301 $moved; }`},
			{Match: rewrite.Prefix, Path: "/missing/", Steps: `return 404;`},
			{Match: rewrite.Prefix, Path: "/app/", Pass: true, InterceptErrors: true, Steps: "error_page 404 @gone;\nerror_page 502 =200 /status;"},
			{Match: rewrite.Exact, Path: "/status", Steps: `return 200 "sorry";`},
			{Match: rewrite.Prefix, Path: "/via/", Steps: "error_page 404 @app;\nreturn 404;"},
			{Match: rewrite.Named, Path: "app", Pass: true},
		}}},
}

// answerByPath answers 404 to a path holding "up-404", 502 to one
// holding "up-502", else 200, each with a body.
func answerByPath(u *rawUpstream, rc *rawConn) {
	for {
		head, err := rc.readHead(5 * time.Second)
		if err != nil {
			return
		}
		u.heads <- head
		status := "200 OK"
		switch line := requestLine(head); {
		case strings.Contains(line, "up-404"):
			status = "404 Not Found"
		case strings.Contains(line, "up-502"):
			status = "502 Bad Gateway"
		}
		if _, err := fmt.Fprintf(rc.c, "HTTP/1.1 %s\r\nContent-Length: 4\r\n\r\nbody", status); err != nil {
			return
		}
	}
}

// TestLocationModel drives the server over loopback: a map, a regex
// server name and an error page, each as nginx answers.
func TestLocationModel(t *testing.T) {
	t.Parallel()
	def := startRawUpstream(t, answerByPath)
	set, err := matcher.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := rewrite.CompileHosts(modelSite)
	if err != nil {
		t.Fatal(err)
	}
	set.SetLocations(hosts)
	up := engine.UpstreamOptions{Pool: testPool(t, upstream.Config{Servers: []string{def.addr}}, nil)}
	srv := engine.New(engine.Options{Listen: "127.0.0.1:0", EventLoops: 1, Upstream: &up}, set)
	runServer(t, srv)
	type answer struct {
		Status               int
		Location, Body, Line string
	}
	for _, tt := range []struct {
		req  string
		want answer
	}{
		{"GET /a?b HTTP/1.1\r\nHost: Toys.shop.test\r\n\r\n", answer{Status: 302, Location: "https://shop.test/toys/a"}},
		{"GET /old HTTP/1.1\r\nHost: www.example.com\r\n\r\n", answer{Status: 301, Location: "/new"}},
		{"GET /blog/12 HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 301, Location: "/archive/12"}},
		{"GET /missing/x HTTP/1.1\r\nHost: other.test\r\n\r\n", answer{Status: 301, Location: "/search?q=/missing/x"}},
		{"GET /page HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 200, Body: "body", Line: "GET /page HTTP/1.1"}},
		// intercept_errors: the upstream's 404 and 502 go to the error
		// pages, its 200 is relayed.
		{"GET /app/up-404 HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 301, Location: "/search?q=/app/up-404", Line: "GET /app/up-404 HTTP/1.1"}},
		{"GET /app/up-502 HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 200, Body: "sorry", Line: "GET /app/up-502 HTTP/1.1"}},
		{"GET /app/x HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 200, Body: "body", Line: "GET /app/x HTTP/1.1"}},
		// An error page that forwards: the upstream's answer goes with
		// the error's status, as nginx's err_status.
		{"GET /via/x HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 404, Body: "body", Line: "GET /via/x HTTP/1.1"}},
		{"GET /page/up-404 HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 404, Body: "body", Line: "GET /page/up-404 HTTP/1.1"}},
	} {
		c := plainTCP.dial(t, srv)
		io.WriteString(c, tt.req)
		resp, body := readFull(t, bufio.NewReader(c), "GET")
		c.Close()
		got := answer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: body}
		select {
		case h := <-def.heads:
			got.Line = requestLine(h)
		default:
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q: (-want +got)\n%s", tt.req, d)
		}
	}
}
