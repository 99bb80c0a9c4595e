//go:build !race

package engine

import (
	"testing"

	"github.com/redirectd/redirectd/engine/upstream"
)

// TestUpstreamRoutePickAllocs: choosing a miss's group runs on the loop
// for every miss, and allocates nothing, whichever kind of route (exact
// host with a port and capitals, a wildcard, any host, none) decides.
func TestUpstreamRoutePickAllocs(t *testing.T) {
	pool := upstream.New(upstream.Config{Servers: []string{"127.0.0.1:1"}}, nil)
	defer pool.Close()
	s := &Server{}
	s.m = newServerMetrics(s)
	def, blog, wild := &UpstreamOptions{Pool: pool}, &UpstreamOptions{Name: "blog", Pool: pool}, &UpstreamOptions{Name: "wild", Pool: pool}
	tab := s.compileRoutes(def, []UpstreamRoute{
		{Host: "www.example.com", Prefix: "/blog/", Group: blog},
		{Host: "*.example.com", Prefix: "/", Group: wild},
		{Prefix: "/api/", Group: blog},
	}, nil, nil)
	for _, c := range []struct{ host, path, want string }{
		{"WWW.example.com:8080", "/blog/x", "blog"},
		{"a.b.example.com", "/x", "wild"},
		{"other.test", "/api/v1", "blog"},
		{"other.test", "/x", "default"},
	} {
		host, path := []byte(c.host), []byte(c.path)
		if g := tab.pick(host, path); g == nil || g.Name != c.want {
			t.Fatalf("%s%s: picked %v, want %s", c.host, c.path, g, c.want)
		}
		if n := testing.AllocsPerRun(100, func() { tab.pick(host, path) }); n != 0 {
			t.Errorf("%s%s: %v allocations per pick, want 0", c.host, c.path, n)
		}
	}
}
