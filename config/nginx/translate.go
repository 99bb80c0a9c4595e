package nginx

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// Rule is one redirectd rule the import writes.
type Rule struct {
	Kind            matcher.Kind // Exact or Regex
	From, To        string
	Status          int
	Hosts           []string // nil: any host
	CaseInsensitive bool
	QueryString     matcher.QueryMode
	// RequestURI compares From with the path and query as sent (a map on
	// $request_uri); Pass makes the rule a "no redirect" entry (a map
	// value of ""), whose To is empty.
	RequestURI, Pass bool
	// Origin is the nginx directive the rule comes from; Form names its
	// kind for the counts ("location =", "rewrite", "map entry", ...).
	Origin *Directive
	Form   string
	// Map is set for the entries of one nginx map used at one place: the
	// writer may put them in a map file together.
	Map string
	// Headers are what add_header adds to the rule's answers.
	Headers []matcher.Header
	// Scheme is the rule's when.scheme: "http" or "https" for the rules
	// of a server that listens on one kind of port, "" for either.
	Scheme string
}

// Result is what Translate makes of a config.
type Result struct {
	Rules []Rule
	// Notes lists what was not translated, or not faithfully, in the
	// order found.
	Notes []Note
	// LeftOut counts, by nginx map name, the entries left out.
	LeftOut map[string]int
	// Listen are nginx's plain and TLS addresses (the first of each
	// kind), as redirectd's [server] listen and [tls] listen write them;
	// "" for none.
	Listen [2]string
	// Certificates are the ssl_certificate and ssl_certificate_key
	// pairs, for [[tls.certificate]].
	Certificates []Certificate
	// Groups are the upstream groups nginx's proxy_pass directives send
	// to, the default one ([upstream], named "default") first when there
	// is one; Routes say which group each host and path prefix goes to.
	Groups []*Group
	Routes []Route
	// Structural are the servers written as [[server_rewrite]] and
	// [[location]] tables (structural.go). With any, NginxURI writes
	// [rules.defaults] uri = "nginx" (KeepSlashes: merge_slashes =
	// false) and AbsoluteRedirect [server] absolute_redirect, nginx's
	// default.
	Structural                              []*Structural
	NginxURI, KeepSlashes, AbsoluteRedirect bool
	// Paths says, per server block, how it was translated and why.
	Paths []string
	// loadProbes are the self-check's requests to structural servers
	// and nginx's answers, for CheckLoaded.
	loadProbes []loadProbe
}

// Certificate is one server's ssl_certificate and ssl_certificate_key.
type Certificate struct {
	Cert, Key string
	Origin    *Directive
	// Missing: a file cannot be read where the import runs, so [tls] is
	// written as a comment (check and serve would refuse it).
	Missing bool
}

// Counts returns how many rules of each form the result holds.
func (r *Result) Counts() map[string]int {
	c := map[string]int{}
	for _, x := range r.Rules {
		c[x.Form]++
	}
	return c
}

// Translate turns the parsed config into redirectd rules.
func Translate(dirs []*Directive) *Result { return TranslateWith(dirs, Options{}) }

// FlatWhole begins the Paths line of a server the flat rules say whole.
const FlatWhole = "flat rules, which say all it does"

// Options change what Translate writes.
type Options struct {
	// AllLocations writes every server the location model runs as
	// [[server_rewrite]] and [[location]] tables, not only those the
	// flat rules cannot say whole.
	AllLocations bool
}

// TranslateWith is Translate with options.
func TranslateWith(dirs []*Directive, opts Options) *Result {
	m := build(dirs)
	t := &translator{m: m, dirs: dirs, all: opts.AllLocations, passGroup: map[*location]*Group{}, groupByKey: map[string]*Group{}, routeNoted: map[*Directive]bool{}, structSrv: map[*server]bool{}}
	if len(m.servers) == 0 {
		m.note(nil, "no server block found: nothing to translate")
	}
	t.routes() // before server(), which changes the hosts of some servers' rules
	claimed := newNameClaims()
	for _, s := range m.servers {
		start, notes := len(t.rules), len(m.notes)
		t.server(s)
		// A server the flat rules cannot say whole is written as the
		// location model where it runs it, and with AllLocations every
		// server.
		if !t.all && !t.leftOutSteps(s) && !errorPages(s.d.Block) && (len(s.patterns) == 0 || s.dflt) {
			t.paths = append(t.paths, fmt.Sprintf("%s: server %s: %s", s.d.Source(), strings.Join(s.names, " "), FlatWhole))
		} else if t.structural(s, claimed) {
			t.rules, m.notes = t.rules[:start], m.notes[:notes]
			t.dropNotes(s)
			t.dropPatternNotes(s)
			m.notes = append(m.notes, t.pending...)
			st := t.structs[len(t.structs)-1]
			t.noteContent(st.Locations)
			t.noteAddHeaders(s.d.Block)
			if t.exposed(s) {
				// Another server's host-less or wildcard rules, which
				// run before locations, must not answer its hosts.
				t.rules = append(t.rules, Rule{Kind: matcher.Regex, From: "^", Hosts: st.Hosts, Pass: true, Origin: s.d, Form: FormServerEnd})
			}
			continue
		}
		claimed.claim(s, s.names)
		for i := start; i < len(t.rules); i++ {
			t.rules[i].Scheme = s.scheme(m)
		}
	}
	if t.rewriteWhole() {
		return TranslateWith(dirs, Options{AllLocations: true})
	}
	t.keepDefault()
	res := &Result{Rules: t.rules, Groups: t.groups, Routes: t.routeList, Structural: t.structs, Paths: t.paths}
	t.structuralSettings(res)
	for k := range 2 {
		res.Listen[k] = listenAddr(m.addrs[k], m.ports[k])
	}
	seen := map[Certificate]bool{}
	for _, c := range m.certs {
		if c.file == "" || c.key == "" {
			m.note(c.d, "a server needs both ssl_certificate and ssl_certificate_key for [[tls.certificate]]; left out")
			continue
		}
		x := Certificate{Cert: certPath(dirs, c.file), Key: certPath(dirs, c.key)}
		if !seen[x] {
			seen[x] = true
			x.Origin = c.d
			for _, f := range []string{x.Cert, x.Key} {
				if _, err := os.Stat(f); err != nil && !x.Missing {
					x.Missing = true
					m.note(c.d, "%s cannot be read here (%v): [tls] is written as a comment, to uncomment where nginx's certificate files are", f, errors.Unwrap(err))
				}
			}
			res.Certificates = append(res.Certificates, x)
		}
	}
	if m.ports[1] != "" && len(res.Certificates) == 0 {
		m.note(nil, "nginx listens with ssl, but no server names its ssl_certificate and ssl_certificate_key; add [[tls.certificate]] to [tls]")
	}
	t.check(res)
	t.checkRoutes()
	res.Notes, res.LeftOut = m.notes, m.leftOut
	return res
}

// rewriteWhole reports whether the translation is to be done again
// with every server written as locations: a named default server
// answers the hosts no server names only as the location model's
// default_server, which takes every host the others do not, so once one
// server is written as locations, every one is.
func (t *translator) rewriteWhole() bool {
	return !t.all && len(t.structs) > 0 && len(t.structs) < len(t.m.servers) && t.defaultWhole()
}

// structuralSettings sets what servers written as locations need in
// res: their hosts' routes go (their locations name their groups; one
// that does not proxy is answered 404 as nginx answers it with no files,
// not sent on by a route), and nginx's $uri and absolute Locations.
func (t *translator) structuralSettings(res *Result) {
	if len(t.structs) == 0 {
		return
	}
	structHost := map[string]bool{}
	for _, st := range t.structs {
		for _, h := range st.Hosts {
			structHost[h] = true
		}
	}
	res.Routes = slices.DeleteFunc(slices.Clone(res.Routes), func(r Route) bool { return structHost[r.Host] })
	res.NginxURI, res.AbsoluteRedirect = true, t.absolute()
	res.KeepSlashes = anyDirective(t.dirs, "merge_slashes", "off")
}

// certPath is a certificate file's path as redirectd reads it: nginx
// reads a relative one from its prefix, taken as the main file's folder.
func certPath(dirs []*Directive, p string) string {
	if filepath.IsAbs(p) || len(dirs) == 0 {
		return p
	}
	return filepath.Join(filepath.Dir(dirs[0].File), p)
}

// listenAddr writes nginx's listen address as redirectd's host:port:
// "443" is every IPv4 address, as nginx reads it.
func listenAddr(addr, port string) string {
	switch {
	case port == "":
		return ""
	case addr == port:
		return "0.0.0.0:" + port
	case strings.HasPrefix(addr, "*:"):
		return "0.0.0.0:" + port
	case strings.HasSuffix(addr, ":"+port):
		return addr
	}
	return net.JoinHostPort(addr, port)
}

type translator struct {
	m     *model
	dirs  []*Directive
	rules []Rule
	// passGroup is the group of each proxying location (nil: it cannot be
	// one), groupByKey each group by what it holds, groups those routes
	// use, the default first, routeList the routes, and dflt the
	// default group, nil for none (proxy.go, routes.go).
	passGroup  map[*location]*Group
	groupByKey map[string]*Group
	groups     []*Group
	routeList  []Route
	routeIdx   map[string][]int // routeList's indexes by host
	dflt       *Group
	// routeNoted are the locations whose routing a note describes
	// already, which the routes' check does not list again.
	routeNoted map[*Directive]bool
	// noted avoids repeating one note per map entry.
	noted map[string]bool
	// structs are the servers written as the location model, structSrv
	// the same by server.
	structs   []*Structural
	structSrv map[*server]bool
	paths     []string
	all       bool // Options.AllLocations
	// pending are the notes of the server structural wrote last.
	pending []Note
}

func (t *translator) noteOnce(d *Directive, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := d.Source() + msg
	if t.noted == nil {
		t.noted = map[string]bool{}
	}
	if !t.noted[key] {
		t.noted[key] = true
		t.m.note(d, "%s", msg)
	}
}

// server writes the rules of one server block in an order whose redirectd
// precedence (exact paths, then regexes in order) repeats nginx's: exact
// paths as nginx answers them, then the server-level rewrite phase, then
// ^~ locations from the longest, regex locations in order, plain prefix
// locations from the longest.
func (t *translator) server(s *server) {
	if t.serverRules(s) && t.exposed(s) {
		t.endServer(s)
	}
}

// serverRules writes the rules of s; it reports false when a
// server-level rule redirects every request, so that nothing is left to
// end. A server-level answer that is not a redirect (`return 404;`) ends
// every request that reaches it with no rule, which the end must say.
func (t *translator) serverRules(s *server) bool {
	t.claimHosts(s)
	t.exactCandidates(s)
	for _, st := range s.pre {
		if !t.step(s, nil, st) {
			return st.kind == stepStop // everything after is unreachable
		}
	}
	// A nested prefix location is tried with its outermost location's
	// group, before it (it is longer); a regex nested in a prefix
	// location is tried before the regexes of the level above, which
	// nginx tries only when the nested level finds no regex.
	var caretRegex, caret, plainRegex, regex, plain []*location
	for _, l := range s.locs {
		top := l.topmost()
		switch {
		case l.mod == "=":
		case l.inRegex():
			t.noteOnce(l.d, "location %s inside a regex location: redirectd cannot test both the regex and this location; its redirects are left out", strings.TrimSpace(l.mod+" "+l.path))
		case l.re != nil && l.parent != nil && !l.re.within(l.parent.path, false):
			t.noteOnce(l.d, "location %s %s inside location %s: its regex can match paths outside the enclosing location, and redirectd cannot test both; anchor it with the enclosing prefix (^%s...); its redirects are left out",
				l.mod, l.path, strings.TrimSpace(l.parent.mod+" "+l.parent.path), l.parent.path)
		case l.re != nil && l.parent != nil && top.mod == "^~":
			caretRegex = append(caretRegex, l)
		case l.re != nil && l.parent != nil:
			plainRegex = append(plainRegex, l)
		case l.re != nil:
			regex = append(regex, l)
		case top.mod == "^~":
			caret = append(caret, l)
		default:
			plain = append(plain, l)
		}
	}
	longestFirst := func(ls []*location) {
		sort.SliceStable(ls, func(i, j int) bool { return len(ls[i].path) > len(ls[j].path) })
	}
	longestFirst(caret)
	longestFirst(plain)
	for _, group := range [][]*location{caretRegex, caret, plainRegex, regex, plain} {
		for _, l := range group {
			ended := false
			sc := locationScope(l)
			for _, st := range l.steps {
				if !t.step(s, l, st) {
					ended = st.kind != stepStop
					break
				}
				if st.kind == stepRewrite && st.re.src == sc.from && st.re.ci == sc.ci {
					ended = true // it redirects every path of the location
					break
				}
			}
			if !ended {
				t.endLocation(s, l)
			}
		}
	}
	return true
}

// FormLocationEnd is the form of the rule that ends a location: a
// no-redirect entry for its paths after its own rules.
const FormLocationEnd = "location (no redirect)"

// endLocation ends the paths of l after its rules: nginx answers a
// request with the one location it picked, so a request none of its
// rules redirects is served by it (404 or content), where redirectd would
// go on to the rules of shorter prefixes and later regexes.
func (t *translator) endLocation(s *server, l *location) {
	sc := locationScope(l)
	t.rules = append(t.rules, Rule{Kind: matcher.Regex, From: sc.from, CaseInsensitive: sc.ci, Hosts: s.hosts, Pass: true,
		Origin: l.d, Form: FormLocationEnd, Map: "no-redirect@" + s.d.Source() + "/regex"})
}

// FormServerEnd is the form of the rule that ends a server's hosts: a
// no-redirect catch-all after the server's own rules.
const FormServerEnd = "server end (no redirect)"

// endServer ends the hosts of s after its own rules. nginx answers a
// request with the rules of the one server it picked, and a request that
// none of them redirects gets that server's 404 (or its content); in
// redirectd a request its host's rules miss goes on to the rules of
// wildcard hosts and then to host-less ones, which belong to other nginx
// servers. A no-redirect regex matching every path, last among the host's
// rules, stops it there: the request is a miss, answered 404 or
// forwarded.
func (t *translator) endServer(s *server) {
	hosts := slices.DeleteFunc(slices.Clone(s.hosts), func(h string) bool { return h == noHost })
	if len(hosts) > 0 {
		t.rules = append(t.rules, Rule{Kind: matcher.Regex, From: "^", Hosts: hosts, Pass: true, Origin: s.d, Form: FormServerEnd})
	}
}

// noHost is the host of a server's rules when leading ifs on $host answer
// all its names: a name no request has (RFC 2606 reserves .invalid).
const noHost = "*.invalid"

// exposed reports whether a request for one of the hosts of s could reach
// another server's rules in redirectd: that of a server without names
// (host-less rules) or of a wildcard name covering the host.
func (t *translator) exposed(s *server) bool {
	if s.hosts == nil {
		return false
	}
	for _, o := range t.m.servers {
		if o == s {
			continue
		}
		if sch, osch := s.scheme(t.m), o.scheme(t.m); sch != "" && osch != "" && sch != osch {
			continue // rules for the other kind of port never answer these requests
		}
		if t.all && t.structuralWhy(o) == "" {
			continue // written as locations too: no flat rules of its own
		}
		if o.hosts == nil {
			return true
		}
		for _, w := range o.hosts {
			if !strings.HasPrefix(w, "*.") {
				continue
			}
			for _, h := range s.hosts {
				if strings.HasSuffix(h, w[1:]) && h != w {
					return true
				}
			}
		}
	}
	return false
}

// claimHosts handles the hosts a leading `if ($host_map)` redirects
// whole: redirectd tries a host's own rules before any other, so those
// hosts are taken out of the hosts of the server's other rules, where they
// would win over the map's catch-all.
func (t *translator) claimHosts(s *server) {
	if s.hosts == nil {
		return // the map's host rules are tried before host-less ones
	}
	var claimed []string
	for _, st := range s.pre {
		if st.kind == stepIfHost {
			claimed = append(claimed, st.host)
			continue
		}
		if st.kind != stepIfMap || st.mapv.source != "host" {
			break
		}
		for _, e := range st.mapv.exact {
			claimed = append(claimed, e.key)
		}
		for _, e := range st.mapv.wild {
			claimed = append(claimed, "*"+e.key)
			if e.apex {
				claimed = append(claimed, e.key[1:])
			}
		}
	}
	var keep []string
	for _, h := range s.hosts {
		covered := false
		for _, c := range claimed {
			if h == c || strings.HasPrefix(c, "*.") && strings.HasSuffix(h, c[1:]) {
				covered = true
			}
		}
		if !covered {
			keep = append(keep, h)
		}
	}
	if len(keep) == 0 {
		keep = []string{noHost} // every name claimed: the other rules serve none
	}
	s.hosts = keep
}

// exactCandidates writes exact rules for the paths nginx names exactly:
// exact locations and the exact keys of maps on the URI. Each path is
// answered as the model of nginx answers it, so a server-level rewrite or
// map that nginx applies first is respected.
func (t *translator) exactCandidates(s *server) {
	var cands []exactCand
	seen := map[exactCand]bool{}
	add := func(c exactCand) {
		if !seen[c] {
			seen[c] = true
			cands = append(cands, c)
		}
	}
	steps := append([]*step(nil), s.pre...)
	for _, l := range s.locs {
		if l.mod == "=" {
			if !strings.HasPrefix(l.path, "/") || strings.ContainsAny(l.path, "?#") {
				t.noteOnce(l.d, "location = %s can never match a request path; left out", l.path)
			} else {
				add(exactCand{path: l.path, loc: l})
			}
		}
		steps = append(steps, l.steps...)
	}
	for _, st := range steps {
		if st.kind != stepIfMap || st.mapv.source == "host" {
			continue
		}
		for _, e := range st.mapv.exact {
			if c, ok := t.mapCand(s, st, e); ok {
				add(c)
			}
		}
	}
	for _, c := range cands {
		t.exactRule(s, c)
	}
}

// exactCand is a path nginx names exactly; fold marks a map key, which
// nginx compares without case.
type exactCand struct {
	path, query string
	host        string // a map key's host part, or ""
	fold        bool
	mapv        *nmap
	entry       *mapEntry
	st          *step     // the map's use
	loc         *location // an exact location's
}

// mapCand makes the candidate of one exact map key, or notes why it has none.
func (t *translator) mapCand(s *server, st *step, e *mapEntry) (exactCand, bool) {
	mp := st.mapv
	path, query, hasQuery := strings.Cut(e.key, "?")
	switch {
	case hasQuery && !mp.requestURI:
		t.noteOnce(e.d, "map key %q holds a query, which $uri never does; left out", e.key)
		return exactCand{}, false
	case !strings.HasPrefix(e.key, "/"):
		t.noteOnce(e.d, "map key %q is not a path; left out", e.key)
		return exactCand{}, false
	case e.host != "" && t.m.selectServer(e.host, s.probeHTTPS()) != s:
		t.noteOnce(e.d, "map key %s: nginx sends host %s to another server, where this map is not used here; left out", e.d.Name, e.host)
		return exactCand{}, false
	}
	return exactCand{path: path, query: query, host: e.host, fold: true, mapv: mp, entry: e, st: st}, true
}

// exactRule writes the rule of one candidate, as the model answers it.
func (t *translator) exactRule(s *server, c exactCand) {
	host := c.host
	if host == "" {
		host = probeHost(s)
	}
	o := t.m.emulate(request{host: host, path: c.path, query: c.query, https: s.probeHTTPS()})
	if o.why != "" {
		what := directiveText(o.step.d)
		if c.entry != nil {
			what = "map key " + c.entry.d.Name
		}
		t.noteOnce(o.step.d, "%s: %s; left out", what, o.why)
	}
	from, hosts := c.path, s.hosts
	if c.mapv != nil && c.mapv.requestURI {
		from = c.entry.key
	} else if c.mapv != nil {
		from = clientPath(from) // a $uri key is decoded: see clientPath
	}
	if c.host != "" {
		hosts = []string{c.host}
	}
	if !o.redirect {
		if c.fold && !o.unknown && c.st.falseValue(partsString(c.entry.value)) {
			// nginx's if is false for this key and nothing later
			// redirects it: a "no redirect" entry keeps the map's
			// regexes and default from answering it.
			t.rules = append(t.rules, Rule{Kind: matcher.Exact, From: from, Hosts: hosts, CaseInsensitive: true,
				RequestURI: c.mapv.requestURI, Pass: true, Origin: c.entry.d, Form: "map entry (no redirect)", Map: mapGroup(c.st, "exact")})
		}
		if c.loc != nil && !o.unknown {
			// An exact location nginx answers itself (return 200,
			// content): no later regex may redirect its path.
			t.rules = append(t.rules, Rule{Kind: matcher.Exact, From: from, Hosts: hosts, Pass: true, Origin: c.loc.d,
				Form: FormLocationEnd, Map: "no-redirect@" + s.d.Source() + "/exact"})
		}
		return
	}
	st := o.step
	if !c.fold && st.kind == stepIfMap && o.entry != nil && o.entry.re == nil {
		return // the map key's own candidate writes it
	}
	if c.fold && (st.kind != stepIfMap || st.mapv != c.mapv || o.entry != c.entry) {
		return // another directive answers this key; its own rules say how
	}
	if (st.kind == stepReturn || st.kind == stepIfHost) && st.loc == nil {
		return // a server-level return: its catch-all rule answers it
	}
	ctx := &toCtx{concrete: o.ctx, fold: c.fold, srv: s, mapv: st.mapv}
	to, mode, err := translateTarget(st.target, st.addArgs, ctx)
	if !matcher.HasLocation(st.status) {
		to, mode, err = "", matcher.QueryKeep, nil // return 410; has no target
	}
	kind := matcher.Exact
	if err == errNeedsRegex {
		ctx = &toCtx{concrete: o.ctx, fold: c.fold, srv: s, mapv: st.mapv, regex: true}
		to, mode, err = translateTarget(st.target, st.addArgs, ctx)
		kind, from = matcher.Regex, "^"+regexp.QuoteMeta(from)+"$"
	}
	if err != nil {
		if c.fold {
			t.valueLeftOut(st, c.entry, err)
		} else {
			t.valueLeftOut(st, nil, err)
		}
		return
	}
	origin := st.d
	if c.fold {
		origin = c.entry.d
	}
	t.noteTarget(origin, ctx)
	t.noteArgsJoin(st, ctx)
	r := Rule{Kind: kind, From: from, To: to, Status: st.status, Hosts: hosts, CaseInsensitive: c.fold,
		RequestURI: c.mapv != nil && c.mapv.requestURI, QueryString: mode, Origin: origin, Form: st.form(),
		Headers: headersFor(s, st.loc, st.status)}
	if c.fold && kind == matcher.Exact {
		r.Map = mapGroup(st, "exact")
	}
	t.rules = append(t.rules, r)
}

// probeHost is a host nginx would send to s.
func probeHost(s *server) string {
	for _, n := range s.names {
		switch {
		case strings.HasPrefix(n, "*."):
			return "probe" + n[1:]
		case strings.HasPrefix(n, "."):
			return n[1:]
		default:
			return n
		}
	}
	return "probe.invalid"
}

func mapGroup(st *step, kind string) string {
	return fmt.Sprintf("%s@%s:%d/%s", st.mapv.name, st.d.File, st.d.Line, kind)
}

func directiveText(d *Directive) string {
	args := make([]string, len(d.Args))
	for i, a := range d.Args {
		args[i] = a
		if a == "" {
			args[i] = `""`
		}
	}
	return strings.TrimSpace(d.Name + " " + strings.Join(args, " "))
}

// scope is the paths a step applies to: its location's.
type scope struct {
	from string // a regex for the location's paths
	ci   bool
	loc  *location
}

func locationScope(l *location) scope {
	if l == nil {
		return scope{from: "^"}
	}
	if l.re != nil {
		return scope{from: l.re.src, ci: l.re.ci, loc: l}
	}
	return scope{from: "^" + regexp.QuoteMeta(l.path), loc: l}
}

// inScope reports whether every path re matches lies in the scope.
func (sc scope) contains(re *nginxRegex) bool {
	switch {
	case sc.loc == nil:
		return true
	case sc.loc.re != nil:
		return re.withinRegex(sc.loc.re)
	}
	return re.within(sc.loc.path, false)
}

// step writes the rules of one rewrite-phase step of server s (l is nil at
// server level). It reports false when the step answers every request
// reaching it, so later steps are unreachable.
func (t *translator) step(s *server, l *location, st *step) bool {
	if l != nil && l.mod == "=" {
		return false // written by exactCandidates
	}
	sc := locationScope(l)
	switch st.kind {
	case stepStop:
		return st.re != nil
	case stepReturn:
		t.add(s, st, sc.from, sc.ci, l.groups(), st.target, false, nil, nil, "")
		return false
	case stepRewrite:
		if !sc.contains(st.re) {
			advice := fmt.Sprintf("anchor it with the location's prefix (^%s...)", l.path)
			if sc.loc.re != nil {
				advice = "give the rewrite the location's own regex"
			}
			t.m.note(st.d, "rewrite %s inside location %s: its regex can match paths outside the location, and redirectd cannot test both; %s; left out",
				st.re.src, strings.TrimSpace(l.mod+" "+l.path), advice)
			return true
		}
		t.add(s, st, st.re.src, st.re.ci, st.re.re.SubexpNames(), st.target, st.addArgs, nil, nil, "")
		return true
	case stepIfMap:
		return t.ifMap(s, l, st, sc)
	case stepIfHost:
		t.ifHost(s, l, st, sc)
	}
	return true
}

// ifHost writes `if ($host = NAME) { return ...; }`: a rule for that host
// alone, in the step's place.
func (t *translator) ifHost(s *server, l *location, st *step, sc scope) {
	if t.m.selectServer(st.host, s.probeHTTPS()) != s {
		t.noteOnce(st.d, "if ($host = %s): nginx sends this host to another server, so this if never holds; left out", st.host)
		return
	}
	r, ok := t.rule(s, st, sc.from, sc.ci, l.groups(), st.target, false, nil, nil)
	if !ok {
		return
	}
	r.Hosts = []string{st.host}
	t.rules = append(t.rules, r)
}

// groups returns the capture names of a location's regex ("" for
// unnamed ones, $0 first), or nil.
func (l *location) groups() []string {
	if l == nil || l.re == nil {
		return []string{""}
	}
	return l.re.re.SubexpNames()
}

// ifMap writes a map step (`if ($map) { return ...; }` and the like):
// the map's regex entries in order (its exact keys are written by
// exactCandidates), then its default when that redirects.
func (t *translator) ifMap(s *server, l *location, st *step, sc scope) bool {
	mp := st.mapv
	if mp.source == "host" {
		return t.hostMap(s, st, sc)
	}
	for _, e := range mp.regex {
		if !sc.contains(e.re) {
			t.noteOnce(e.d, "map entry %s is used inside location %s but can match paths outside it; left out", e.d.Name, strings.TrimSpace(l.mod+" "+l.path))
			continue
		}
		if e.host != "" && t.m.selectServer(e.host, s.probeHTTPS()) != s {
			t.noteOnce(e.d, "map entry %s: nginx sends host %s to another server, where this map is not used here; left out", e.d.Name, e.host)
			continue
		}
		if v := partsString(e.value); st.always && v == "" {
			t.noteOnce(e.d, "map entry %s: nginx answers %d with no Location for it (the value is \"\"), which redirectd cannot send; left out", e.d.Name, st.status)
			continue
		}
		t.add(s, st, e.re.src, e.re.ci, e.re.re.SubexpNames(), st.target, st.addArgs, mp, e, mapGroup(st, "regex"))
	}
	dflt := partsString(mp.dflt)
	switch {
	case st.always && dflt == "":
		t.noteOnce(st.d, "%s: nginx answers %d with no Location to every request no key of $%s matches (its default is \"\"), which redirectd cannot send; left out", directiveText(st.d), st.status, mp.name)
		return false
	case st.always || !st.falseValue(dflt):
		t.add(s, st, sc.from, sc.ci, l.groups(), st.target, st.addArgs, mp, nil, "")
		return false
	}
	return true
}

// hostMap writes an if on a map of $host: one catch-all rule per host key
// that nginx would send to this server.
func (t *translator) hostMap(s *server, st *step, sc scope) bool {
	mp := st.mapv
	for _, e := range mp.regex {
		t.noteOnce(e.d, "map on $host: regex key %s has no redirectd equivalent (hosts are names or *.wildcards); left out", e.d.Name)
	}
	entries := append(append([]*mapEntry(nil), mp.exact...), mp.wild...)
	for _, e := range entries {
		var hosts []string
		probe := e.key
		switch {
		case strings.HasPrefix(e.key, ".") && e.apex:
			hosts, probe = []string{e.key[1:], "*" + e.key}, e.key[1:]
		case strings.HasPrefix(e.key, "."):
			hosts, probe = []string{"*" + e.key}, "probe"+e.key
		default:
			hosts = []string{e.key}
		}
		if t.m.selectServer(probe, s.probeHTTPS()) != s {
			t.noteOnce(e.d, "map key %s: nginx sends this host to another server, where this map is not used; left out", e.d.Name)
			continue
		}
		r, ok := t.rule(s, st, sc.from, sc.ci, sc.loc.groups(), st.target, false, mp, e)
		if !ok {
			continue
		}
		r.Hosts, r.Origin, r.Form = hosts, e.d, "map entry (host)"
		t.rules = append(t.rules, r)
	}
	if dflt := partsString(mp.dflt); dflt != "" && !(dflt == "0" && st.zeroFalse) {
		t.add(s, st, sc.from, sc.ci, sc.loc.groups(), st.target, false, mp, nil, "")
		return false
	}
	return true
}

// add appends a regex rule for a step: for a map step, the rule of one
// regex entry e (a "no redirect" rule when its value makes the if false)
// or of the default (e nil).
func (t *translator) add(s *server, st *step, from string, ci bool, names []string, target []part, addArgs bool, mp *nmap, e *mapEntry, group string) {
	var value []part
	if mp != nil {
		value = mp.dflt
		if e != nil {
			value = e.value
		}
	}
	var r Rule
	if e != nil && !st.always && st.falseValue(partsString(value)) {
		r = Rule{Kind: matcher.Regex, From: from, Status: st.status, Hosts: s.hosts, CaseInsensitive: ci, Pass: true,
			Form: "map entry (no redirect)"}
	} else {
		var ok bool
		if r, ok = t.rule(s, st, from, ci, names, target, addArgs, mp, e); !ok {
			return
		}
	}
	r.Map = group
	switch {
	case e != nil:
		r.Origin = e.d
		r.RequestURI = mp.requestURI
		if e.host != "" {
			r.Hosts = []string{e.host}
		}
	case mp != nil:
		r.Form = "map default"
	}
	t.rules = append(t.rules, r)
}

// rule makes the regex rule of a step; e is the map entry whose value the
// target takes (nil: the map's default, or no map), and what is noted of
// that value is noted at the entry's line.
func (t *translator) rule(s *server, st *step, from string, ci bool, names []string, target []part, addArgs bool, mp *nmap, e *mapEntry) (Rule, bool) {
	var value []part
	at := st.d
	if mp != nil {
		value = mp.dflt
	}
	if e != nil {
		value, at = e.value, e.d
	}
	ctx := &toCtx{regex: true, ngroups: len(names) - 1, names: names, srv: s, mapv: mp, value: value, base: literalPath(from)}
	ctx.argsQ = st.kind == stepIfMap && addArgs && !st.argsAmp && e != nil && e.re != nil && mp.requestURI && strings.Contains(e.re.literal, "?")
	to, mode, err := translateTarget(target, addArgs, ctx)
	if !matcher.HasLocation(st.status) {
		to, mode, err = "", matcher.QueryKeep, nil // return 410; has no target
	}
	if err != nil {
		t.valueLeftOut(st, e, err)
		return Rule{}, false
	}
	if _, fixed := s.fixedScheme(); hasVar(target, "scheme") && !fixed {
		t.noteOnce(st.d, "$scheme is written as http: the server listens on plain and TLS ports, and a redirectd target has no scheme variable")
	}
	t.noteTarget(at, ctx)
	t.noteArgsJoin(st, ctx)
	return Rule{Kind: matcher.Regex, From: from, To: to, Status: st.status, Hosts: s.hosts, CaseInsensitive: ci,
		QueryString: mode, Origin: st.d, Form: st.form(), Headers: headersFor(s, st.loc, st.status)}, true
}

// noteTarget says how a target nginx sends but redirectd refuses was
// written.
func (t *translator) noteTarget(d *Directive, ctx *toCtx) {
	for _, w := range ctx.rewrites {
		t.m.noteRewritten(d, "%s", w)
	}
	for _, w := range ctx.caveats {
		t.noteOnce(d, "%s", w)
	}
}

// noteArgsJoin notes, once per map use, the values holding a '?' that a
// rewrite appends the arguments to: nginx picks '?' or '&' from the
// rewrite's own text, so `rewrite ^ $v permanent` gives "/a?b=1?c=2".
func (t *translator) noteArgsJoin(st *step, ctx *toCtx) {
	if st.kind == stepIfMap && st.addArgs && !st.argsAmp && ctx.valueQuery {
		t.noteOnce(st.d, "%s: map values holding a '?' get the request's arguments after a second '?' from nginx (it picks '?' or '&' from the rewrite's own text); redirectd joins them with '&'", directiveText(st.d))
	}
}
