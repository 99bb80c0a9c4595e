package engine

import (
	"time"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/upstream"
)

// UpstreamRoute sends the misses of Host whose path starts with Prefix to
// Group: the [[route]] tables.
type UpstreamRoute struct {
	// Host is a lower-case name, "*.example.com" for any subdomain of
	// example.com, or "" for any host.
	Host string
	// Prefix starts with '/'; the longest that the path starts with wins
	// among one host's routes.
	Prefix string
	Group  *UpstreamOptions
}

// group is one upstream group as the server runs it: its options with
// the defaults filled, the client slots of max_conns_per_client and each
// server's metrics. Forwards keep the group they started with, so that a
// reload replacing it does not move an exchange under way.
type group struct {
	UpstreamOptions
	opts *UpstreamOptions // as given, for reuse across SetUpstreams
	// hostHeader is HostHeader as bytes, made once.
	hostHeader []byte
	slots      clientSlots
	metrics    map[*upstream.Server]*upstreamMetrics
}

// routeTable is the compiled [[route]] tables with the default group
// (forward.Routes): a value never changed once stored, swapped whole on
// reload (Server.SetUpstreams), read lock-free by the loops.
type routeTable struct {
	fw.Routes[*group]
	groups []*group
	// sendTimeout is the longest of the groups' (Server.sendTimeout).
	sendTimeout time.Duration
}

// pick returns the group of the request for host (as sent: any case,
// port allowed) and path, or nil when no route matches and there is no
// default group (forward.Routes.Pick).
func (t *routeTable) pick(host, path []byte) *group { return t.Pick(host, path) }

// compileRoutes builds the table of def and routes; groups already run
// (by their given options) are taken from old, so that their slots and
// metrics carry over a reload that keeps them.
func (s *Server) compileRoutes(def *UpstreamOptions, routes []UpstreamRoute, named []*UpstreamOptions, old *routeTable) *routeTable {
	known := map[*UpstreamOptions]*group{}
	if old != nil {
		for _, g := range old.groups {
			known[g.opts] = g
		}
	}
	t := &routeTable{}
	seen := map[*group]bool{}
	use := func(o *UpstreamOptions) *group {
		g := known[o]
		if g == nil {
			g = s.newGroup(o)
			known[o] = g
		}
		if !seen[g] {
			seen[g] = true
			t.groups = append(t.groups, g)
		}
		return g
	}
	if def != nil {
		t.Default = use(def)
	}
	for _, r := range routes {
		if r.Group != nil {
			t.Add(r.Host, r.Prefix, use(r.Group))
		}
	}
	for _, o := range named {
		if o != nil {
			use(o) // reached by name only: a location's upstream
		}
	}
	t.Sort()
	for _, g := range t.groups {
		t.sendTimeout = max(t.sendTimeout, g.SendTimeout)
	}
	return t
}

// newGroup fills o's defaults and makes its slots and metrics.
func (s *Server) newGroup(o *UpstreamOptions) *group {
	g := &group{UpstreamOptions: o.WithDefaults(), opts: o}
	up := &g.UpstreamOptions
	if up.HostHeader != "" {
		g.hostHeader = []byte(up.HostHeader)
	}
	g.slots.init(up.MaxConnsPerClient)
	g.metrics = make(map[*upstream.Server]*upstreamMetrics)
	for _, srv := range up.Pool.Servers() {
		m := s.m.forServer(up.Name, srv)
		g.metrics[srv] = m
		srv.CountStale(m.stale)
	}
	return g
}

// SetUpstreams replaces the default group and the routes: misses parsed
// after it returns go where they say; exchanges under way finish with
// the group they started with. Groups given by the same options as
// before keep their client slots. The caller closes pools no longer
// used once their exchanges are done (upstream.Pool.Close leaves those
// running).
//
// named are groups that no route names, which a location forwards to by
// name ([[location]] upstream).
func (s *Server) SetUpstreams(def *UpstreamOptions, routes []UpstreamRoute, named ...*UpstreamOptions) {
	s.upMu.Lock()
	defer s.upMu.Unlock()
	s.routes.Store(s.compileRoutes(def, routes, named, s.routes.Load()))
}

// Forwards reports whether a request for host and path that no rule
// answers goes to an upstream group ([upstream] or a [[route]]), not a
// 404: the admin console's draft samples say "forwarded" for it. The
// location phase ([[location]]) is not consulted.
func (s *Server) Forwards(host, path string) bool {
	t := s.routes.Load()
	return t != nil && t.pick([]byte(host), []byte(path)) != nil
}

// forwarding reports whether any miss may be forwarded.
func (s *Server) forwarding() bool { return len(s.routes.Load().groups) > 0 }
