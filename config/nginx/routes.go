package nginx

import (
	"fmt"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/internal/plural"
)

// Routes: which group each server's locations proxy to, as redirectd's
// [[route]] tables say it, and the import's check that redirectd forwards
// each request nginx proxies to the same group.

// Route is one [[route]] the import writes.
type Route struct {
	Host   string // "" for any host
	Prefix string
	Group  *Group
	Origin *Directive // the location
	// dropped: left out of what is written (the default group's route,
	// or one that changes nothing), and of routeFor.
	dropped bool
}

// routes makes the routes of every server's proxying locations: nginx
// picks the server by name per kind of port (emulate.go), then the
// location, whose proxy_pass decides the group. A server's names become
// the routes' hosts; the default server of a port, which nginx gives
// every host no server names, gets routes without a host as well, and the
// group of its location / becomes [upstream], the default group. With no
// such location there is no default group: nginx answers the unnamed
// hosts itself, and so redirectd answers them 404.
func (t *translator) routes() {
	m := t.m
	for k := range 2 {
		if m.ports[k] == "" {
			continue
		}
		for _, s := range m.servers {
			if s.dfltOn[k] {
				t.serverRoutes(s, []string{""})
			}
		}
		for _, s := range m.servers {
			switch {
			case !s.on[k] || s.hosts == nil && (s.dfltOn[0] || s.dfltOn[1]):
			case s.hosts == nil:
				why := "this server has no server_name and is not the default server: nginx sends it only requests without a Host"
				if s.unnamable {
					why = "this server's names are regexes or end with a wildcard, which no route's host can say"
				}
				if slices.ContainsFunc(s.locs, func(l *location) bool { return l.pass != nil }) {
					m.note(s.d, "%s; its proxy_pass routes are left out", why)
				}
			default:
				t.serverRoutes(s, s.hosts)
			}
		}
	}
	t.pickDefault()
	t.pruneRoutes()
	t.nameGroups()
}

// serverRoutes writes the routes of s for hosts ("" for any host): a
// prefix location is a route of its prefix; an exact location a route
// only where the prefix routes send its path elsewhere, with a note (a
// prefix route also takes the longer paths); a regex location one only
// when it is a prefix (^/files/), else a note.
func (t *translator) serverRoutes(s *server, hosts []string) {
	var exact, regex []*location
	for _, l := range s.locs {
		g, ok := t.proxyGroup(l)
		switch {
		case !ok:
		case l.inRegex():
			t.noteOnce(l.d, "proxy_pass inside a location nested in a regex location: redirectd routes by path prefix alone; left out")
		case l.re != nil:
			regex = append(regex, l)
		case !strings.HasPrefix(l.path, "/"):
			t.noteOnce(l.d, "location %s can never match a request path, which starts with '/'; its proxy_pass is left out", l.path)
		case l.mod == "=":
			exact = append(exact, l)
		default:
			for _, h := range hosts {
				t.addRoute(Route{Host: h, Prefix: clientPath(l.path), Group: g, Origin: l.d})
			}
		}
	}
	var noted []*location
	for _, l := range regex {
		// ^/files/ or ^/files/(.*)$ matches exactly the paths a prefix
		// route takes: a route, unless a prefix location of that path
		// is there (nginx tries it first when it is ^~). Where nginx's
		// order (regexes in order, before the longest plain prefix)
		// picks otherwise, the self-check lists it.
		if !l.re.prefixOnly || l.re.ci || l.parent != nil || slices.ContainsFunc(s.locs, func(o *location) bool { return o.re == nil && o.mod != "=" && o.path == l.re.literal }) {
			noted = append(noted, l)
			continue
		}
		g, _ := t.proxyGroup(l)
		for _, h := range hosts {
			t.addRoute(Route{Host: h, Prefix: clientPath(l.re.literal), Group: g, Origin: l.d})
		}
	}
	regex = noted
	for _, l := range exact {
		g, _ := t.proxyGroup(l)
		for _, h := range hosts {
			if cur, _ := t.routeFor(probeHostOf(orUnnamed(h)), l.path); cur == g {
				continue
			}
			t.noteOnce(l.d, "location = %s: a route takes a path prefix, so the route written for it sends the longer paths %s... to this upstream too", l.path, l.path)
			t.routeNoted[l.d] = true
			t.addRoute(Route{Host: h, Prefix: clientPath(l.path), Group: g, Origin: l.d})
		}
	}
	for _, l := range regex {
		g, _ := t.proxyGroup(l)
		for _, h := range hosts {
			if cur, _ := t.routeFor(probeHostOf(orUnnamed(h)), l.re.literal+"probe"); cur != g {
				t.noteOnce(l.d, "location %s %s: redirectd routes by host and path prefix, not by regex, so the requests nginx proxies here (%s) go where the prefix routes send them; left out", l.mod, l.path, l.pass.Args[0])
				t.routeNoted[l.d] = true
				break
			}
		}
	}
}

func orUnnamed(h string) string {
	if h == "" {
		return "unnamed.invalid"
	}
	return h
}

// addRoute adds r unless a route of its host and prefix is there: nginx
// picks servers per kind of port, and routes do not tell plain requests
// from TLS ones.
func (t *translator) addRoute(r Route) {
	for _, i := range t.routeIdx[r.Host] {
		o := &t.routeList[i]
		if o.Prefix != r.Prefix {
			continue
		}
		if o.Group != r.Group {
			host := r.Host
			if host == "" {
				host = "hosts no server names"
			}
			t.noteOnce(r.Origin, "requests for %s at %s go to %s as the location at %s says: a route cannot tell plain requests from TLS ones, and nginx picks another server or location for the other kind; left out",
				host, r.Prefix, strings.Join(o.Group.Servers, ", "), o.Origin.Source())
		}
		return
	}
	if t.routeIdx == nil {
		t.routeIdx = map[string][]int{}
	}
	t.routeIdx[r.Host] = append(t.routeIdx[r.Host], len(t.routeList))
	t.routeList = append(t.routeList, r)
}

// routeFor is the group redirectd forwards a miss for host and path to
// (config.Route: the routes of the exact host, then of the wildcards
// covering it from the longest, then those without a host; among one
// host's, the longest matching prefix), else the default group; nil for
// none. Dropped routes are not there.
func (t *translator) routeFor(host, path string) (*Group, *Route) {
	host = strings.TrimSuffix(strings.ToLower(hostOnly(host)), ".")
	best := func(h string) *Route {
		var r *Route
		for _, i := range t.routeIdx[h] {
			x := &t.routeList[i]
			if !x.dropped && strings.HasPrefix(path, x.Prefix) && (r == nil || len(x.Prefix) > len(r.Prefix)) {
				r = x
			}
		}
		return r
	}
	if r := best(host); r != nil {
		return r.Group, r
	}
	for i := 0; i < len(host); i++ {
		if host[i] == '.' {
			if r := best("*" + host[i:]); r != nil {
				return r.Group, r
			}
		}
	}
	if r := best(""); r != nil {
		return r.Group, r
	}
	return t.dflt, nil
}

// visible are the routes a request for host can reach: its own, those of
// the wildcards covering it and those for any host.
func (t *translator) visible(host string) []int {
	out := slices.Clone(t.routeIdx[host])
	for i := 0; i < len(host); i++ {
		if host[i] == '.' {
			out = append(out, t.routeIdx["*"+host[i:]]...)
		}
	}
	if host != "" {
		out = append(out, t.routeIdx[""]...)
	}
	return out
}

// pickDefault makes the group of the route for any host at / the default
// group, [upstream], in that route's place.
func (t *translator) pickDefault() {
	for _, i := range t.routeIdx[""] {
		if r := &t.routeList[i]; r.Prefix == "/" {
			t.dflt, r.dropped = r.Group, true
			t.dflt.Name = "default"
		}
	}
}

// pruneRoutes drops the routes that change no request's group: one that a
// shorter prefix of the same host sends to the same group already
// (nginx's location /api/ and location / both proxying to one upstream),
// one of a name of the default server that the routes for any host
// answer alike, and so on. A route of an exact host is dropped when every
// path it matches (each visible route's prefix that extends its own
// stands for the paths between) goes to the same group without it; one
// for a wildcard or any host only where a shorter route of its own host
// (or the default group) sends its paths to the same group, since other
// hosts fall through to it.
func (t *translator) pruneRoutes() {
	for i := range t.routeList {
		r := &t.routeList[i]
		if r.dropped {
			continue
		}
		host := probeHostOf(orUnnamed(r.Host))
		var probes []string
		for _, j := range t.visible(r.Host) {
			if o := &t.routeList[j]; !o.dropped && strings.HasPrefix(o.Prefix, r.Prefix) {
				probes = append(probes, o.Prefix)
			}
		}
		before := make([]*Group, len(probes))
		for j, p := range probes {
			before[j], _ = t.routeFor(host, p)
		}
		r.dropped = true
		same := r.Host != "" && !strings.HasPrefix(r.Host, "*.")
		if !same {
			cover, via := t.routeFor(host, r.Prefix)
			same = cover == r.Group && (via != nil && via.Host == r.Host || via == nil && r.Host == "")
		}
		for j, p := range probes {
			if g, _ := t.routeFor(host, p); g != before[j] {
				same = false
			}
		}
		r.dropped = same
	}
	kept := t.routeList[:0]
	for _, r := range t.routeList {
		if !r.dropped {
			kept = append(kept, r)
		}
	}
	t.routeList, t.routeIdx = kept, map[string][]int{}
	for i, r := range kept {
		t.routeIdx[r.Host] = append(t.routeIdx[r.Host], i)
	}
}

// nameGroups names the groups that routes use, after their upstream
// block or host, each name once; the others receive nothing and are not
// written.
func (t *translator) nameGroups() {
	used := map[string]bool{"default": true}
	var groups []*Group
	if t.dflt != nil {
		groups = append(groups, t.dflt)
	}
	for _, g := range t.groups {
		if g == t.dflt || !slices.ContainsFunc(t.routeList, func(r Route) bool { return r.Group == g && !r.dropped }) {
			continue
		}
		base := strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '-'
		}, strings.Trim(g.base, "[]"))
		if len(base) > 60 {
			base = base[:60]
		}
		if base == "" {
			base = "upstream"
		}
		name := base
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		used[name], g.Name = true, name
		groups = append(groups, g)
	}
	t.groups = groups
}

// checkRoutes asks nginx's model and the routes where each request that
// neither redirects goes, with the self-check's requests (check.go) and
// every route's prefix, and notes each difference: a request nginx
// proxies to one upstream that redirectd forwards to another or answers
// 404 (differs), and the requests nginx answers itself (content or 404)
// that redirectd forwards, once per server.
func (t *translator) checkRoutes() {
	if len(t.groups) == 0 {
		return
	}
	type served struct {
		first string
		n     int
	}
	servedBy := map[*server]map[*Group]*served{}
	var order []*server
	var diffs []string
	seen, alike := map[string]int{}, map[int]int{}
	for _, req := range t.routeProbes() {
		if o := t.m.emulate(req); o.redirect || o.unknown {
			continue // a redirect, compared by check
		}
		s := t.m.selectServer(req.host, req.https)
		if s == nil || t.structSrv[s] {
			continue // a structural server's locations name their groups
		}
		want, at := t.nginxGroup(s, req)
		got, via := t.routeFor(req.host, req.path)
		if want == got || t.routeNoted[at] || via != nil && t.routeNoted[via.Origin] {
			continue // the same group, or a difference noted at its location
		}
		host := req.host
		if host == "unnamed.invalid" {
			host = "(a host no server_name names)"
		}
		url := fmt.Sprintf("%s://%s%s", [2]string{"http", "https"}[kindOf(req.https)], host, req.path)
		if want == nil {
			if servedBy[s] == nil {
				servedBy[s] = map[*Group]*served{}
				order = append(order, s)
			}
			if x := servedBy[s][got]; x != nil {
				x.n++
			} else {
				servedBy[s][got] = &served{first: url, n: 1}
			}
			continue
		}
		key := at.Source() + "|" + groupName(got)
		if i, ok := seen[key]; ok {
			alike[i]++
			continue
		}
		seen[key] = len(diffs)
		gotText := "answers 404 (no route, no [upstream])"
		if got != nil {
			gotText = "forwards it to group " + groupName(got) + " (" + strings.Join(got.Servers, ", ") + ")"
		}
		diffs = append(diffs, fmt.Sprintf("differs: %s: nginx proxies it to %s (%s), redirectd %s", url, strings.Join(want.Servers, ", "), at.Source(), gotText))
	}
	for i, d := range diffs {
		if n := alike[i]; n > 0 {
			d += " (and " + plural.Count(n, "more request") + " alike)"
		}
		t.m.note(nil, "%s", d)
	}
	for _, s := range order {
		for _, g := range t.groups {
			if x := servedBy[s][g]; x != nil {
				t.m.note(s.d, "nginx answers requests of this server that it does not proxy itself (404 or its content), such as %s, where redirectd forwards them to group %s (%s): %s the import tried", x.first, groupName(g), strings.Join(g.Servers, ", "), plural.Count(x.n, "request"))
			}
		}
	}
}

// nginxGroup is the group of the location nginx picks for req in s, nil
// when nginx answers it itself, and the directive that decides; a
// proxy_pass the import left out is marked noted.
func (t *translator) nginxGroup(s *server, req request) (*Group, *Directive) {
	l := s.selectLocation(req.path, &evalCtx{req: req, srv: s})
	if l == nil {
		return nil, s.d
	}
	g, ok := t.proxyGroup(l)
	if !ok && l.pass != nil {
		t.routeNoted[l.d] = true // a proxy_pass left out, with its note
	}
	return g, l.d
}

// routeProbes are the self-check's requests with their query left out
// (routes never read it), plus each route's prefix, for every server on
// every kind of port it listens on, and a host no server names for the
// default servers.
func (t *translator) routeProbes() []request {
	var out []request
	seen := map[request]bool{}
	for _, s := range t.m.servers {
		own := t.probePaths(s)
		for k, https := range []bool{false, true} {
			if !s.on[k] {
				continue
			}
			hosts := probeHosts(s)
			if s.dfltOn[k] && !slices.Contains(hosts, "unnamed.invalid") {
				hosts = append(hosts, "unnamed.invalid")
			}
			for _, h := range hosts {
				paths := slices.Clone(own)
				for _, i := range t.visible(strings.ToLower(h)) {
					paths = append(paths, t.routeList[i].Prefix, t.routeList[i].Prefix+"probe")
				}
				for _, p := range paths {
					p, _, _ = strings.Cut(p, "?")
					r := request{host: h, path: p, https: https}
					if clientSends(p) && !seen[r] {
						seen[r] = true
						out = append(out, r)
					}
				}
			}
		}
	}
	return out
}

// groupName is g's name in a route, or "none".
func groupName(g *Group) string {
	if g == nil {
		return "none"
	}
	return g.Name
}
