package engine

import (
	"testing"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// modelLocations are the locations of bench-compare's nginx-model config
// (benchmarks/compare/model.go), which an exact hit never reaches.
var modelLocations = []rewrite.LocationSpec{
	{Match: rewrite.Exact, Path: "/healthz", Steps: `return 200 "ok";`},
	{Match: rewrite.Prefix, Path: "/docs/", Steps: "rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;\nrewrite ^/docs/(?!(v\\d|latest)/)(?:.+) /docs/v2/ redirect;",
		Locations: []rewrite.LocationSpec{{Match: rewrite.Prefix, Path: "/docs/v1/", Steps: `rewrite ^/docs/v1/old/(.*)$ /docs/v2/$1 permanent;`}}},
	{Match: rewrite.Regex, Path: `\.php$`, Steps: `return 410;`},
	{Match: rewrite.Named, Path: "notfound", Steps: `return 302 /search?q=$uri;`},
}

// modelServerSteps are that config's server-level steps, which run
// before the rules on every request and match nothing here.
const modelServerSteps = "if ($http_x_forwarded_proto = \"http\") { return 301 https://$host$request_uri; }\nrewrite ^/index\\.html$ / permanent;"

// modelFixture serves the reference rules with nginx's $uri when uri is
// set, and with the model's servers, steps and locations when steps and
// locs are.
func modelFixture(tb testing.TB, uri, steps, locs bool) *serveFixture {
	tb.Helper()
	b := matcher.NewBuilder(matcher.DefaultLimits)
	b.SetURI(matcher.URI{Nginx: uri})
	for _, r := range rules.Rules(rules.Reference) {
		if err := b.Add(&r); err != nil {
			tb.Fatal(err)
		}
	}
	set, err := b.Set()
	if err != nil {
		tb.Fatal(err)
	}
	if steps || locs {
		spec := rewrite.Spec{}
		if steps {
			spec.Steps = []rewrite.Text{{Src: modelServerSteps}}
		}
		if locs {
			spec.Locations = modelLocations
		}
		org := spec
		org.Steps = append([]rewrite.Text{{Src: "return 308 https://example.org$request_uri;"}}, spec.Steps...)
		hosts, err := rewrite.CompileHosts([]rewrite.HostSpec{{Spec: spec}, {Host: "www.example.org", Spec: org}})
		if err != nil {
			tb.Fatal(err)
		}
		set.SetLocations(hosts)
	}
	srv := New(Options{}, set)
	return &serveFixture{srv: srv, conn: &conn{loop: newLoop(srv, nil)}}
}

// BenchmarkServeModel is bench-compare's model-exact against exact
// without the socket: an exact hit of the reference rules as they are,
// with nginx's $uri, with the model's locations (never reached), and
// with the server-level steps too (run on every request), so that what
// each part costs an exact hit shows apart.
func BenchmarkServeModel(b *testing.B) {
	req := []byte("GET " + rules.ExactHit + " HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
	for _, bc := range []struct {
		name             string
		uri, steps, locs bool
	}{
		{"plain", false, false, false},
		{"nginx-uri", true, false, false},
		{"nginx-uri+locations", true, false, true},
		{"model", true, true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := modelFixture(b, bc.uri, bc.steps, bc.locs)
			out := string(f.serve(b, req))
			if want := "HTTP/1.1 301 "; len(out) < len(want) || out[:len(want)] != want {
				b.Fatalf("answer %q", out)
			}
			b.ReportAllocs()
			start := testutil.ProcessCPU()
			for b.Loop() {
				f.serve(b, req)
			}
			// CPU beside wall time: on a shared machine wall time
			// counts others' turns too.
			b.ReportMetric(float64(testutil.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
