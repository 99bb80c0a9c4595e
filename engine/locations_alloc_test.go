package engine

import (
	"testing"

	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// TestPhaseAllocs checks that the location phase keeps serving free of
// allocations: a rewrite that redirects, a location chosen for a local
// answer, a return, each with the Location made absolute.
func TestPhaseAllocs(t *testing.T) {
	set, err := matcher.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	// The server's steps run before the rules, the locations after.
	hosts, err := rewrite.CompileHosts([]rewrite.HostSpec{{Spec: rewrite.Spec{Steps: []rewrite.Text{{Src: "set $site main;"}}, Locations: []rewrite.LocationSpec{
		{Match: rewrite.Prefix, Path: "/docs/", Steps: `rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;`},
		{Match: rewrite.Exact, Path: "/healthz", Steps: `return 200 "ok";`},
		{Match: rewrite.Regex, Path: `^/old/(\d+)$`, Steps: `return 301 https://$host/new/$1$is_args$args&site=$site;`},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	set.SetLocations(hosts)
	srv := New(Options{AbsoluteRedirect: true}, set)
	f := &serveFixture{srv: srv, conn: &conn{loop: newLoop(srv, nil)}}
	out := string(f.serve(t, []byte("GET /docs/a/usage/?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")))
	if want := "HTTP/1.1 302 Found\r\nLocation: http://example.com/docs/a/usage/overview.html?x=1\r\n"; len(out) < len(want) || out[:len(want)] != want {
		t.Fatalf("answer %q, want it to start %q", out, want)
	}
	for _, req := range []string{
		"GET /docs/a/usage/?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n",
		"GET /healthz HTTP/1.1\r\nHost: example.com\r\n\r\n",
		"GET /old/12?a=b HTTP/1.1\r\nHost: Example.COM:8080\r\n\r\n",
	} {
		buf := []byte(req)
		f.serve(t, buf)
		if allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) }); allocs != 0 {
			t.Errorf("%q: %v allocations per request, want 0", req[:20], allocs)
		}
	}
}

// TestPhaseModelAllocs is TestPhaseAllocs for a server chosen by a
// regex name, a map and an error page.
func TestPhaseModelAllocs(t *testing.T) {
	set, err := matcher.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := rewrite.CompileHosts([]rewrite.HostSpec{
		{Host: `~^(?<shop>[a-z]+)\.shop\.test$`, Spec: rewrite.Spec{Locations: []rewrite.LocationSpec{
			{Match: rewrite.Prefix, Path: "/", Steps: `return 302 https://shop.test/$shop$uri;`}}}},
		{Host: "*.example.com", Spec: rewrite.Spec{
			Steps: []rewrite.Text{{Src: "error_page 404 @gone;"}},
			Maps:  []rewrite.MapSpec{{Source: "$uri", Variable: "moved", Entries: "/old /new;\n~^/blog/(\\d+)$ /archive/$1;"}},
			Locations: []rewrite.LocationSpec{
				{Match: rewrite.Named, Path: "gone", Steps: `return 301 /search?q=$uri;`},
				{Match: rewrite.Prefix, Path: "/", Steps: `if ($moved) { return 301 $moved; } return 404;`},
			}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	set.SetLocations(hosts)
	srv := New(Options{}, set)
	f := &serveFixture{srv: srv, conn: &conn{loop: newLoop(srv, nil)}}
	for _, req := range []string{
		"GET /a HTTP/1.1\r\nHost: toys.shop.test\r\n\r\n",
		"GET /old HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
		"GET /blog/12 HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
		"GET /x HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
	} {
		buf := []byte(req)
		f.serve(t, buf)
		if allocs := testing.AllocsPerRun(100, func() { f.serve(t, buf) }); allocs != 0 {
			t.Errorf("%q: %v allocations per request, want 0", req[:20], allocs)
		}
	}
}
