package engine

import (
	"fmt"
	"testing"

	"github.com/redirectd/redirectd/engine/upstream"
)

// BenchmarkUpstreamRoutePick measures choosing a miss's group among 100
// hosts of 5 routes each, a wildcard and any-host routes: the work a
// forwarded request adds on the event loop.
func BenchmarkUpstreamRoutePick(b *testing.B) {
	pool := upstream.New(upstream.Config{Servers: []string{"127.0.0.1:1"}}, nil)
	defer pool.Close()
	s := &Server{}
	s.m = newServerMetrics(s)
	g := &UpstreamOptions{Pool: pool}
	var routes []UpstreamRoute
	for h := range 100 {
		for p := range 5 {
			routes = append(routes, UpstreamRoute{Host: fmt.Sprintf("h%d.example.com", h), Prefix: fmt.Sprintf("/section%d/", p), Group: g})
		}
	}
	routes = append(routes, UpstreamRoute{Host: "*.example.com", Prefix: "/", Group: g}, UpstreamRoute{Prefix: "/api/", Group: g})
	tab := s.compileRoutes(g, routes, nil, nil)
	for _, c := range []struct{ name, host, path string }{
		{"exact", "H42.example.com:443", "/section4/page"},
		{"wildcard", "deep.sub.example.com", "/x"},
		{"any", "other.test", "/api/v1/users"},
		{"default", "other.test", "/nothing"},
	} {
		host, path := []byte(c.host), []byte(c.path)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tab.pick(host, path)
			}
		})
	}
}
