package engine_test

import (
	"bufio"
	"io"
	"testing"

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
		}}},
}

// TestLocationModel drives the server over loopback: a map, a regex
// server name and an error page, each as nginx answers.
func TestLocationModel(t *testing.T) {
	t.Parallel()
	def := startRawUpstream(t, answerOK)
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
	done := make(chan error, 1)
	go func() { done <- srv.Run() }()
	select {
	case <-srv.Ready():
	case err := <-done:
		t.Fatalf("server did not start: %v", err)
	}
	t.Cleanup(func() { stopServer(t, srv, done) })
	type answer struct {
		Status         int
		Location, Line string
	}
	for _, tt := range []struct {
		req  string
		want answer
	}{
		{"GET /a?b HTTP/1.1\r\nHost: Toys.shop.test\r\n\r\n", answer{Status: 302, Location: "https://shop.test/toys/a"}},
		{"GET /old HTTP/1.1\r\nHost: www.example.com\r\n\r\n", answer{Status: 301, Location: "/new"}},
		{"GET /blog/12 HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 301, Location: "/archive/12"}},
		{"GET /missing/x HTTP/1.1\r\nHost: other.test\r\n\r\n", answer{Status: 301, Location: "/search?q=/missing/x"}},
		{"GET /page HTTP/1.1\r\nHost: a.example.com\r\n\r\n", answer{Status: 200, Line: "GET /page HTTP/1.1"}},
	} {
		c := plainTCP.dial(t, srv)
		io.WriteString(c, tt.req)
		resp, _ := readFull(t, bufio.NewReader(c), "GET")
		c.Close()
		got := answer{Status: resp.StatusCode, Location: resp.Header.Get("Location")}
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
