package rewrite

import (
	"slices"
	"sort"
)

// Listed is one server's steps or one location as List gives them, for
// /rules and the console.
type Listed struct {
	// Host is the host whose server it is, "" for every host that no
	// other names (the steps and locations written without a host, which
	// the named hosts' servers hold too).
	Host string
	// Scheme is the server's scheme, "" when it serves both.
	Scheme string
	// Location is the location as nginx writes it ("= /x", "~* \.php$",
	// "@err"), "" for a server's steps. Parent is the one it is nested
	// in, "" at the server's level.
	Location, Parent string
	Kind             Kind
	Path             string
	// Line is the line the steps or location are written on.
	Line  int
	Steps string
	// Pass, Upstream and URI are the location's forwarding (proxy_pass).
	Pass     bool
	Upstream string
	URI      string
	HasURI   bool
}

// List lists the server steps and locations of each host, in file
// order, host by host ("" first, then by name). A named host's server
// holds the ones written without a host too; those are listed once,
// under "".
func (h *Hosts) List() []Listed {
	if h == nil {
		return nil
	}
	var out []Listed
	shared := map[int]bool{}
	named := slices.Clone(h.named)
	sort.SliceStable(named, func(i, j int) bool { return named[i].name < named[j].name }) // "" first
	for _, n := range named {
		if n.name == "" && n.scheme == "" {
			out = n.p.list("", "", nil, out)
			for _, l := range out {
				shared[l.Line] = true
			}
			continue
		}
		out = n.p.list(n.name, n.scheme, shared, out)
	}
	return out
}

// list appends p's steps and locations for host, leaving out those on
// a line in skip.
func (p *Program) list(host, scheme string, skip map[int]bool, out []Listed) []Listed {
	for _, t := range p.spec.Steps {
		if !skip[t.Line] {
			out = append(out, Listed{Host: host, Scheme: scheme, Line: t.Line, Steps: t.Src})
		}
	}
	return listLocations(host, scheme, "", p.spec.Locations, skip, out)
}

func listLocations(host, scheme, parent string, specs []LocationSpec, skip map[int]bool, out []Listed) []Listed {
	for i := range specs {
		sp := &specs[i]
		name := locationName(sp)
		if !skip[sp.Line] {
			out = append(out, Listed{Host: host, Scheme: scheme, Location: name, Parent: parent, Kind: sp.Match, Path: sp.Path,
				Line: sp.Line, Steps: sp.Steps, Pass: sp.Pass, Upstream: sp.Upstream, URI: sp.URI, HasURI: sp.HasURI})
		}
		out = listLocations(host, scheme, name, sp.Locations, skip, out)
	}
	return out
}

// locationName is a location as nginx writes it.
func locationName(sp *LocationSpec) string {
	if sp.Match == Named {
		return "@" + sp.Path
	}
	if sp.Match == Prefix {
		return sp.Path
	}
	return sp.Match.String() + " " + sp.Path
}
