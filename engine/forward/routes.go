package forward

import (
	"slices"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/internal/hostmap"
)

// Routes is the [[route]] table a miss is looked up in: the groups (G,
// the engine's running group, whose zero value means none) of each
// host's path prefixes, and a default group. Built with Add and Sort,
// then only read, lock-free, by every event loop.
type Routes[G comparable] struct {
	// Default answers when no route matches.
	Default G
	// groups holds the group of each route, in the order of Add; the
	// host tables hold indexes into it, so that the lookup itself is
	// plain code, not generic code instantiated by shape.
	groups []G
	hostTables
}

// hostTables holds the routes of each lower-case host or wildcard host
// ("*.example.com", any depth below) in hosts, and those of routes for
// any host in any.
type hostTables struct {
	hosts hostmap.Map[*hostRoutes]
	any   *hostRoutes
}

// hostRoutes are one host's routes, the longest prefix first once
// sorted: route i sends a path starting with prefixes[i] to the group
// at routes[i].
type hostRoutes struct {
	prefixes []string
	routes   []int
}

// Add routes the requests for host ("" for any, "*.example.com" for any
// subdomain) whose path starts with prefix to g.
func (t *Routes[G]) Add(host, prefix string, g G) {
	var h *hostRoutes
	if host == "" {
		if t.any == nil {
			t.any = &hostRoutes{}
		}
		h = t.any
	} else if h, _ = t.hosts.Get(host); h == nil {
		h = &hostRoutes{}
		t.hosts.Put(host, h)
	}
	h.prefixes = append(h.prefixes, prefix)
	h.routes = append(h.routes, len(t.groups))
	t.groups = append(t.groups, g)
}

// Sort orders every host's routes by prefix, the longest first, keeping
// the order of Add among prefixes of one length. Call it once all are
// added.
func (t *Routes[G]) Sort() {
	if t.any != nil {
		t.any.sort()
	}
	t.hosts.Values((*hostRoutes).sort)
}

func (h *hostRoutes) sort() {
	idx := make([]int, len(h.prefixes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return len(h.prefixes[b]) - len(h.prefixes[a]) })
	ps, rs := make([]string, len(idx)), make([]int, len(idx))
	for i, j := range idx {
		ps[i], rs[i] = h.prefixes[j], h.routes[j]
	}
	h.prefixes, h.routes = ps, rs
}

// Pick returns the group of the request for host (as sent: any case,
// port and trailing dot allowed) and path, or Default when no route
// matches. The most specific host's routes are tried first (exact,
// wildcards from the longest, any host); within them, the longest
// prefix. It allocates nothing: it runs on the loop for every miss.
func (t *Routes[G]) Pick(host, path []byte) G {
	if i := t.route(host, path); i >= 0 {
		return t.groups[i]
	}
	return t.Default
}

// route is Pick's lookup: the index of the route, or -1.
func (t *hostTables) route(host, path []byte) int {
	if !t.hosts.Empty() {
		name, _ := httpparse.SplitHostPort(host)
		if n := len(name); n > 1 && name[n-1] == '.' {
			name = name[:n-1]
		}
		var buf [256]byte
		if len(name) <= len(buf) {
			key := ascii.AppendLower(buf[:0], name)
			if h, _ := t.hosts.Exact(key); h != nil {
				if i := h.pick(path); i >= 0 {
					return i
				}
			}
			for i := 0; ; {
				h, next, ok := t.hosts.Wild(key, i)
				if !ok {
					break
				}
				if r := h.pick(path); r >= 0 {
					return r
				}
				i = next
			}
		}
	}
	return t.any.pick(path)
}

func (h *hostRoutes) pick(path []byte) int {
	if h == nil {
		return -1
	}
	for i, p := range h.prefixes {
		if len(path) >= len(p) && string(path[:len(p)]) == p {
			return h.routes[i]
		}
	}
	return -1
}
