package forward

import (
	"slices"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/internal/hostmap"
)

// Routes is the [[route]] table a miss is looked up in: the groups (G,
// the engine's running group, compared with its zero value for "none")
// of each host's path prefixes, and a default group. Built with Add and
// Sort, then only read, lock-free, by every event loop.
type Routes[G comparable] struct {
	// Default answers when no route matches.
	Default G
	// hosts holds the routes of each lower-case host or wildcard host
	// ("*.example.com", any depth below); any those of routes for any
	// host.
	hosts hostmap.Map[*hostRoutes[G]]
	any   *hostRoutes[G]
}

// hostRoutes are one host's routes, the longest prefix first once
// sorted.
type hostRoutes[G comparable] struct {
	prefixes []string
	groups   []G
}

// Add routes the requests for host ("" for any, "*.example.com" for any
// subdomain) whose path starts with prefix to g.
func (t *Routes[G]) Add(host, prefix string, g G) {
	var h *hostRoutes[G]
	if host == "" {
		if t.any == nil {
			t.any = &hostRoutes[G]{}
		}
		h = t.any
	} else if h, _ = t.hosts.Get(host); h == nil {
		h = &hostRoutes[G]{}
		t.hosts.Put(host, h)
	}
	h.prefixes = append(h.prefixes, prefix)
	h.groups = append(h.groups, g)
}

// Sort orders every host's routes by prefix, the longest first, keeping
// the order of Add among prefixes of one length. Call it once all are
// added.
func (t *Routes[G]) Sort() {
	if t.any != nil {
		t.any.sort()
	}
	t.hosts.Values(func(h *hostRoutes[G]) { h.sort() })
}

func (h *hostRoutes[G]) sort() {
	idx := make([]int, len(h.prefixes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return len(h.prefixes[b]) - len(h.prefixes[a]) })
	ps, gs := make([]string, len(idx)), make([]G, len(idx))
	for i, j := range idx {
		ps[i], gs[i] = h.prefixes[j], h.groups[j]
	}
	h.prefixes, h.groups = ps, gs
}

// Pick returns the group of the request for host (as sent: any case,
// port and trailing dot allowed) and path, or the zero G when no route
// matches and there is no default. The most specific host's routes are
// tried first (exact, wildcards from the longest, any host); within
// them, the longest prefix. It allocates nothing: it runs on the loop
// for every miss.
func (t *Routes[G]) Pick(host, path []byte) G {
	var zero G
	if !t.hosts.Empty() {
		name, _ := httpparse.SplitHostPort(host)
		if n := len(name); n > 1 && name[n-1] == '.' {
			name = name[:n-1]
		}
		var buf [256]byte
		if len(name) <= len(buf) {
			key := ascii.AppendLower(buf[:0], name)
			if h, _ := t.hosts.Exact(key); h != nil {
				if g := h.pick(path); g != zero {
					return g
				}
			}
			for i := 0; ; {
				h, next, ok := t.hosts.Wild(key, i)
				if !ok {
					break
				}
				if g := h.pick(path); g != zero {
					return g
				}
				i = next
			}
		}
	}
	if g := t.any.pick(path); g != zero {
		return g
	}
	return t.Default
}

func (h *hostRoutes[G]) pick(path []byte) G {
	var zero G
	if h == nil {
		return zero
	}
	for i, p := range h.prefixes {
		if len(path) >= len(p) && string(path[:len(p)]) == p {
			return h.groups[i]
		}
	}
	return zero
}
