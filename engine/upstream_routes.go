package engine

import (
	"net/netip"
	"time"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/forward/exchange"
	"github.com/redirectd/redirectd/engine/upstream"
)

// UpstreamOptions configure forwarding of misses to one upstream group;
// the type, its fields and their defaults are package forward's
// (forward.Options).
type UpstreamOptions = fw.Options

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

// group is one upstream group as the server runs it: as exchanges see it
// (its options with the defaults filled, each server's metrics, the
// client slots of max_conns_per_client), and what the loop needs besides.
// Forwards keep the group they started with, so that a reload replacing
// it does not move an exchange under way.
type group struct {
	exchange.Group
	opts *UpstreamOptions // as given, for reuse across SetUpstreams
	// hostHeader is HostHeader as bytes, made once.
	hostHeader []byte
	slots      clientSlots
}

// clientSlots counts, per client address, the forwarded requests whose
// exchange with an upstream is running (waiting for a pooled connection,
// sending the body, relaying the answer), so that one client cannot hold
// the whole pool: max_conns_per_client. The connections of one client
// spread over every event loop, so the count is shared, in shards behind
// their own mutex. It is taken and given back by the forward's goroutine,
// never on an event loop (exchange.Slots). The count is ipCounts'.
type clientSlots struct{ counts ipCounts }

func (cs *clientSlots) init(max int) { cs.counts.init(max) }

// Take counts one exchange for ip unless ip has max running; an unknown
// address (invalid) is never refused. ip is the client as the connection
// limiter counts it (connLimiter.client: an IPv6 address by its prefix).
func (cs *clientSlots) Take(ip netip.Addr) bool {
	return !ip.IsValid() || cs.counts.take(ip)
}

// Put gives back a slot that Take counted.
func (cs *clientSlots) Put(ip netip.Addr) {
	if ip.IsValid() {
		cs.counts.put(ip)
	}
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
	g := &group{Group: exchange.Group{Options: o.WithDefaults()}, opts: o}
	up := &g.Options
	if up.HostHeader != "" {
		g.hostHeader = []byte(up.HostHeader)
	}
	g.slots.init(up.MaxConnsPerClient)
	g.Slots = &g.slots
	g.Servers = make(map[*upstream.Server]*exchange.ServerMetrics)
	for _, srv := range up.Pool.Servers() {
		m := s.m.forServer(up.Name, srv)
		g.Servers[srv] = m
		srv.CountStale(m.Stale)
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
