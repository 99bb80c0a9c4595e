package nginx

import (
	"fmt"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// Structural translation: a server block whose directives redirectd's
// location model runs is written as [[server_rewrite]] and [[location]]
// tables, its steps copied as nginx's own text, rather than flattened
// into exact, prefix and regex rules. A server that uses what the model
// lacks keeps the flat translation.

// Structural is one server block written as the location model.
type Structural struct {
	Server *Directive
	// Hosts are its names, each once in the whole config.
	Hosts []string
	// Steps are its server-level rewrite-phase directives, in order.
	Steps     []*Directive
	Locations []*StructLoc
	// Maps are the map blocks its steps read.
	Maps []*nmap
	// Default: nginx sends it the hosts no server names, written as
	// default_server on its first host; DefaultOn says on which kinds
	// of port (plain, TLS) it is the default.
	Default   bool
	DefaultOn [2]bool
	// DefaultScheme is "http" or "https" for a server on both kinds of
	// port that is the default of one only: there it is a server per
	// scheme, and the default of that one.
	DefaultScheme string
	// Scheme is "http" or "https" for a server on one kind of port in a
	// config with both, else "".
	Scheme string
}

// noName is the host a default server without a usable server_name is
// written under: nginx's own placeholder name, which no request carries
// in practice, so that only its default_server role gives it requests.
const noName = "_"

// nameClaims are the server names taken so far, by kind of port (plain,
// TLS): nginx chooses among the servers of the port a request came to.
type nameClaims [2]map[string]bool

func newNameClaims() nameClaims { return nameClaims{{}, {}} }

// kinds are the kinds of port s listens on, both when it names none.
func kinds(s *server) []int {
	switch {
	case s.on[0] && s.on[1], !s.on[0] && !s.on[1]:
		return []int{0, 1}
	case s.on[1]:
		return []int{1}
	}
	return []int{0}
}

// taken reports whether an earlier server claimed name on a kind of
// port s listens on.
func (c nameClaims) taken(s *server, name string) bool {
	for _, k := range kinds(s) {
		if c[k][name] {
			return true
		}
	}
	return false
}

// claim takes names for s on its kinds of port.
func (c nameClaims) claim(s *server, names []string) {
	for _, k := range kinds(s) {
		for _, n := range names {
			c[k][n] = true
		}
	}
}

// StructLoc is one location of a Structural server.
type StructLoc struct {
	D     *Directive
	Match string // the [[location]] match key
	Path  string
	Steps []*Directive
	// Group is its proxy_pass's upstream group, nil when it has none;
	// URI is proxy_pass's URI part when HasURI.
	Group  *Group
	URI    string
	HasURI bool
	// Intercept is proxy_intercept_errors on.
	Intercept bool
	Locations []*StructLoc
}

// stepNames are the rewrite-phase directives the model runs.
// error_page is written among them, as the model declares it.
var stepNames = map[string]bool{"rewrite": true, "return": true, "if": true, "set": true, "break": true, "error_page": true}

// matchKinds maps a location modifier to its match key.
var matchKinds = map[string]string{"=": "exact", "": "prefix", "^~": "prefix_noregex", "~": "regex", "~*": "regex_ci"}

// structural writes s as the location model when it can and reports
// whether it did; when it cannot, a note says why and s keeps the flat
// translation.
func (t *translator) structural(s *server, claimed nameClaims) bool {
	// The notes on what the tables leave out, kept in t.pending for the
	// caller, which drops the flat rules' notes.
	mark := len(t.m.notes)
	defer func() {
		t.pending = slices.Clone(t.m.notes[mark:])
		t.m.notes = t.m.notes[:mark]
	}()
	why := t.structuralWhy(s)
	if why == "" {
		byDir := map[*Directive]*location{}
		for _, l := range s.locs {
			byDir[l.d] = l
		}
		st := &Structural{Server: s.d, Scheme: s.scheme(t.m)}
		for _, c := range s.d.Block {
			switch {
			case stepNames[c.Name]:
				if r := t.runnable(c); r != nil {
					st.Steps = append(st.Steps, r)
				}
			case c.Name == "location" && len(c.Args) == 1 && strings.HasPrefix(c.Args[0], "@"):
				// A named location, which error_page reaches.
				sl, w := t.structLoc(c, byDir)
				if w != "" {
					why = w
				}
				st.Locations = append(st.Locations, sl)
			case c.Name == "location":
				sl, w := t.structLoc(c, byDir)
				if w != "" {
					why = w
				}
				st.Locations = append(st.Locations, sl)
			}
		}
		for _, n := range append(slices.Clone(s.names), s.patterns...) {
			if !claimed.taken(s, n) {
				st.Hosts = append(st.Hosts, n)
			}
		}
		if s.dflt && len(s.names)+len(s.patterns) == 0 && len(t.m.servers) > 1 && !claimed.taken(s, noName) {
			st.Hosts = []string{noName}
		}
		st.Maps = t.mapsRead(writtenSteps(st.Steps, st.Locations)) // not those of an if left out
		if why != "" {
			// st is incomplete
		} else if _, err := rewrite.CompileHosts(hostSpecs([]*Structural{st})); err != nil {
			why = "the location model refuses it: " + err.Error()
		}
		st.Default = s.dflt && len(t.m.servers) > 1 && len(st.Hosts) > 0
		st.DefaultOn = s.dfltOn
		if st.Scheme == "" && s.dfltOn[0] != s.dfltOn[1] && t.m.ports[0] != "" && t.m.ports[1] != "" {
			st.DefaultScheme = [2]string{"http", "https"}[kindOf(s.dfltOn[1])]
		}
		if len(t.m.servers) == 1 {
			st.Hosts = nil
		} else if why == "" && len(st.Hosts) == 0 {
			why = "an earlier server has all its names"
		}
		if why == "" {
			claimed.claim(s, st.Hosts)
			t.structs = append(t.structs, st)
			t.structSrv[s] = true
			t.paths = append(t.paths, fmt.Sprintf("%s: server %s: [[server_rewrite]] and [[location]] tables (%d locations)", s.d.Source(), strings.Join(s.names, " "), countLocs(st.Locations)))
			t.locationForm(s.d.Block)
			return true
		}
	}
	t.paths = append(t.paths, fmt.Sprintf("%s: server %s: flat rules, since the location model does not run it: %s", s.d.Source(), strings.Join(s.names, " "), why))
	t.m.notes = t.m.notes[:mark] // the flat rules say their own
	return false
}

// structuralWhy says why s cannot be written as the location model, ""
// when it can.
func (t *translator) structuralWhy(s *server) string {
	switch {
	case len(t.m.servers) == 1 && !s.unnamable:
		// One server answers every host: its tables name none.
	case len(s.names) == 0 && len(s.patterns) == 0 && s.dflt:
		// Written under noName, as the default server.
	case len(s.names) == 0 && len(s.patterns) == 0 || s.unnamable && len(s.patterns) == 0:
		return "it has no server_name a host can match exactly"
	}
	return ""
}

// fileTests are nginx's if operators on files.
var fileTests = map[string]bool{"-f": true, "-d": true, "-e": true, "-x": true}

// ifRunnable are the directives the location model runs inside an if.
var ifRunnable = map[string]bool{"rewrite": true, "return": true, "if": true, "set": true, "break": true}

// runnable is step d as the location model runs it: an if whose block
// holds directives the model does not run inside an if (proxy_pass,
// error_page, add_header, ...) is written without them, each noted:
// left out where it decides a forward or an error's answer, a caveat
// otherwise. The rest of the server is still written as locations.
func (t *translator) runnable(d *Directive) *Directive {
	if d.Name != "if" {
		return d
	}
	if c := ifCondition(d.Args); len(c) > 0 && fileTests[strings.TrimPrefix(c[0], "!")] {
		t.m.note(d, "if (%s): nginx tests the site's files here, which redirectd does not have; the if and its steps are left out", strings.Join(c, " "))
		return nil
	}
	var block []*Directive
	changed := false
	for _, c := range d.Block {
		switch {
		case ifRunnable[c.Name]:
			r := t.runnable(c)
			changed = changed || r != c
			if r != nil {
				block = append(block, r)
			}
		case c.Name == "proxy_pass" || c.Name == "error_page":
			t.m.note(c, "%s inside if: redirectd's locations run rewrite, return, set and break in an if, so nginx's conditional %s is left out", c.Name, map[string]string{"proxy_pass": "forward", "error_page": "error page"}[c.Name])
			changed = true
		default:
			t.m.note(c, "%s inside if: redirectd's locations run rewrite, return, set and break in an if; this one has no effect", c.Name)
			t.m.notes[len(t.m.notes)-1].Kind = importer.Caveat
			changed = true
		}
	}
	if !changed {
		return d
	}
	c := *d
	c.Block = block
	return &c
}

// locationForm notes each absolute_redirect, server_name_in_redirect and
// port_in_redirect of dirs that is not nginx's default: redirectd writes
// the Location in one form for the whole config, absolute_redirect's
// (the import writes off only when the whole config says off).
func (t *translator) locationForm(dirs []*Directive) {
	defaults := map[string]string{"absolute_redirect": "on", "server_name_in_redirect": "off", "port_in_redirect": "on"}
	for _, c := range dirs {
		if def, ok := defaults[c.Name]; ok && len(c.Args) == 1 && c.Args[0] != def && !(c.Name == "absolute_redirect" && !t.absolute()) {
			t.m.note(c, "%s %s: redirectd writes a Location as nginx does by default (absolute, with the request's host and port) for the whole config; not translated", c.Name, c.Args[0])
			t.m.notes[len(t.m.notes)-1].Kind = importer.Caveat
		}
		t.locationForm(c.Block)
	}
}

// absolute reports whether the config's Locations are absolute: nginx's
// default, unless every absolute_redirect says off.
func (t *translator) absolute() bool {
	return !anyDirective(t.dirs, "absolute_redirect", "off") || anyDirective(t.dirs, "absolute_redirect", "on")
}

// structLoc converts location directive d; why is not "" when the
// model cannot run it.
func (t *translator) structLoc(d *Directive, byDir map[*Directive]*location) (sl *StructLoc, why string) {
	l := byDir[d]
	if len(d.Args) == 1 && strings.HasPrefix(d.Args[0], "@") {
		sl = &StructLoc{D: d, Match: "named", Path: d.Args[0][1:]}
	} else if l == nil {
		return nil, "location at " + d.Source() + " is left out"
	} else {
		sl = &StructLoc{D: d, Match: matchKinds[l.mod], Path: l.path}
	}
	for _, c := range d.Block {
		switch {
		case c.Name == "proxy_intercept_errors" && len(c.Args) == 1:
			sl.Intercept = c.Args[0] == "on"
		case stepNames[c.Name]:
			if r := t.runnable(c); r != nil {
				sl.Steps = append(sl.Steps, r)
			}
		case c.Name == "location":
			n, w := t.structLoc(c, byDir)
			if w != "" {
				return sl, w
			}
			sl.Locations = append(sl.Locations, n)
		case c.Name == "proxy_pass" && (len(c.Args) != 1 || strings.Contains(c.Args[0], "$") || !strings.Contains(c.Args[0], "://")):
			t.m.note(c, "proxy_pass %s: redirectd forwards to the fixed servers of a group, not to an address a variable names; the forward is left out", strings.Join(c.Args, " "))
		case c.Name == "proxy_pass":
			g := t.locGroup(l)
			if g == nil {
				return sl, "proxy_pass at " + c.Source() + " has no upstream group"
			}
			sl.Group = g
			_, rest, _ := strings.Cut(c.Args[0], "://")
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				sl.URI, sl.HasURI = rest[i:], true
			}
		}
	}
	if sl.Group == nil && l != nil && l.tryNamed != "" && l.pass != nil {
		// try_files $uri @app, with @app proxying: nginx forwards what
		// it finds no file for, and redirectd, which has no files,
		// forwards it all (the try_files note says so).
		if sl.Group = t.locGroup(l); sl.Group == nil {
			return sl, "the try_files at " + d.Source() + " falls back to a proxy_pass with no upstream group"
		}
		_, rest, _ := strings.Cut(l.pass.Args[0], "://")
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			sl.URI, sl.HasURI = rest[i:], true
		}
	}
	return sl, ""
}

// locGroup is the upstream group l forwards to, nil when there is none
// written.
func (t *translator) locGroup(l *location) *Group {
	g, seen := t.passGroup[l]
	if !seen && l != nil && l.pass != nil {
		// A location no route could say (a regex one, or one of a
		// server with regex names): its group, when it is one the
		// routes already use. Looked up without adding a group or a
		// note, as a server left flat would keep them.
		n := len(t.m.notes)
		if ng := t.makeGroup(l); ng != nil {
			g = t.groupByKey[ng.key()]
		}
		t.m.notes = t.m.notes[:n]
	}
	if g == nil || g.Name == "" || !t.groupWritten(g) {
		return nil
	}
	return g
}

// groupWritten reports whether g is among the groups written.
func (t *translator) groupWritten(g *Group) bool {
	for _, x := range t.groups {
		if x == g {
			return true
		}
	}
	return false
}

// anyDirective reports whether a directive name with the one argument
// arg is anywhere in dirs.
func anyDirective(dirs []*Directive, name, arg string) bool {
	for _, d := range dirs {
		if d.Name == name && len(d.Args) == 1 && d.Args[0] == arg || anyDirective(d.Block, name, arg) {
			return true
		}
	}
	return false
}

// countLocs counts ls and the locations nested in them.
func countLocs(ls []*StructLoc) int {
	n := len(ls)
	for _, l := range ls {
		n += countLocs(l.Locations)
	}
	return n
}

// stepSources are the places of the rewrite-phase directives, locations
// and proxy_pass directives of s: what the location model runs.
func stepSources(s *server) map[string]bool {
	at := map[string]bool{}
	var walk func([]*Directive)
	walk = func(dirs []*Directive) {
		for _, d := range dirs {
			if stepNames[d.Name] || d.Name == "location" || d.Name == "proxy_pass" {
				at[d.Source()] = true
			}
			walk(d.Block)
		}
	}
	walk(s.d.Block)
	return at
}

// leftOutSteps reports whether a note says a rewrite-phase directive or
// a location of s is left out: what the flat rules cannot say.
func (t *translator) leftOutSteps(s *server) bool {
	at := stepSources(s)
	for _, n := range t.m.notes {
		if n.Kind == importer.LeftOut && at[fmt.Sprintf("%s:%d", n.File, n.Line)] {
			return true
		}
	}
	return false
}

// dropNotes takes out the notes about what the flat rules could not say
// of s, which its locations now say.
func (t *translator) dropNotes(s *server) {
	at := stepSources(s)
	// Notes on content (root, try_files) stay: a location on the same
	// line has the same place.
	t.m.notes = slices.DeleteFunc(t.m.notes, func(n Note) bool {
		return (n.Kind != importer.Served || strings.HasPrefix(n.Msg, "error_page:")) && at[fmt.Sprintf("%s:%d", n.File, n.Line)]
	})
}

// noteContent notes each location that neither proxies nor ends in a
// return: nginx answers what its steps leave with content or 404, where
// redirectd goes on to the routes and [upstream].
func (t *translator) noteContent(ls []*StructLoc) {
	for _, l := range ls {
		ends := len(l.Steps) > 0 && l.Steps[len(l.Steps)-1].Name == "return"
		if l.Group == nil && !ends {
			t.m.note(l.D, "location %s: nginx answers the requests its steps leave itself (content, or 404); redirectd forwards them where the routes or [upstream] send them, else answers 404", strings.Join(l.D.Args, " "))
		}
		t.noteContent(l.Locations)
	}
}

// upstreamErrorsOnly reports whether error_page d names only 5xx codes:
// nginx's answers when the upstream fails, which redirectd gives as its
// own 502 and 504 whichever way the server is written (noted).
func upstreamErrorsOnly(d *Directive) bool {
	if len(d.Args) < 2 {
		return false
	}
	for _, a := range d.Args[:len(d.Args)-1] {
		if strings.HasPrefix(a, "=") {
			continue
		}
		if len(a) != 3 || a[0] != '5' {
			return false
		}
	}
	return true
}

// noteAddHeaders notes each add_header of a structural server that the flat
// rules would have sent: locations send no header fields of their own.
func (t *translator) noteAddHeaders(dirs []*Directive) {
	for _, d := range dirs {
		if d.Name == "add_header" && len(d.Args) > 0 && !slices.ContainsFunc(t.m.notes, func(n Note) bool { return n.File == d.File && n.Line == d.Line }) {
			t.m.note(d, "add_header %s: a server written as locations sends no header fields of its own on its answers; left out", d.Args[0])
		}
		t.noteAddHeaders(d.Block)
	}
}

// mapsRead are the maps whose variables dirs (and the blocks inside)
// read, in the order of the config: they are written as
// [[location_map]] tables the steps read.
func (t *translator) mapsRead(dirs []*Directive) []*nmap {
	used := map[*nmap]bool{}
	var walk func([]*Directive)
	walk = func(dirs []*Directive) {
		for _, c := range dirs {
			if stepNames[c.Name] {
				for _, a := range c.Args {
					for name, mp := range t.m.maps {
						if strings.Contains(a, "$"+name) || strings.Contains(a, "${"+name+"}") {
							used[mp] = true
						}
					}
				}
			}
			walk(c.Block)
		}
	}
	walk(dirs)
	var out []*nmap
	for _, mp := range t.m.mapOrder() {
		if used[mp] {
			out = append(out, mp)
		}
	}
	return out
}

// writtenSteps are the steps written for a server: its own and its
// locations', nested ones included.
func writtenSteps(steps []*Directive, locs []*StructLoc) []*Directive {
	out := slices.Clone(steps)
	for _, l := range locs {
		if l != nil {
			out = append(out, writtenSteps(l.Steps, l.Locations)...)
		}
	}
	return out
}

// mapSpec is map mp as the location model compiles it: its lines as
// nginx's text.
func mapSpec(mp *nmap) rewrite.MapSpec {
	return rewrite.MapSpec{Line: mp.d.Line, Source: mp.d.Args[0], Variable: mp.d.Args[1], Entries: stepText(mp.d.Block), EntriesLine: mp.d.Line + 1}
}

// mapOrder is the maps in the order the config writes them.
func (m *model) mapOrder() []*nmap {
	var out []*nmap
	for _, mp := range m.maps {
		out = append(out, mp)
	}
	slices.SortFunc(out, func(a, b *nmap) int {
		if c := strings.Compare(a.d.File, b.d.File); c != 0 {
			return c
		}
		return a.d.Line - b.d.Line
	})
	return out
}

// errorPages reports whether dirs hold an error_page the flat rules
// cannot say (one for a code below 500, or one to a named location):
// nginx sends those errors elsewhere, which only the location model
// runs.
func errorPages(dirs []*Directive) bool {
	for _, d := range dirs {
		if d.Name == "error_page" && (!upstreamErrorsOnly(d) || strings.HasPrefix(d.Args[len(d.Args)-1], "@")) || errorPages(d.Block) {
			return true
		}
	}
	return false
}

// defaultWhole reports whether the config's default server has names,
// among several servers, and the location model can run every server.
func (t *translator) defaultWhole() bool {
	named := false
	for _, s := range t.m.servers {
		named = named || t.namedDefault(s)
		if t.structuralWhy(s) != "" {
			return false
		}
	}
	return named
}

// keepDefault writes the default server as default_server when every
// server is written as locations, and takes out the note that says
// redirectd answers other hosts otherwise; else it is written for its
// names only, as the note says.
func (t *translator) keepDefault() {
	whole := len(t.structs) == len(t.m.servers)
	for _, st := range t.structs {
		if !st.Default {
			continue
		}
		if !whole {
			st.Default = false
			continue
		}
		t.m.notes = slices.DeleteFunc(t.m.notes, func(n Note) bool {
			return n.File == st.Server.File && n.Line == st.Server.Line && strings.HasPrefix(n.Msg, "nginx sends requests for hosts that no server_name names")
		})
	}
}

// namedDefault reports whether s is the default server of several: its
// flat rules answer only its names, where nginx sends it every host no
// server names too.
func (t *translator) namedDefault(s *server) bool {
	return s.dflt && len(t.m.servers) > 1
}

// dropPatternNotes takes out the notes that s's regex and
// trailing-wildcard names, and its proxy_pass routes, are left out: its
// tables name them and its locations forward.
func (t *translator) dropPatternNotes(s *server) {
	t.m.notes = slices.DeleteFunc(t.m.notes, func(n Note) bool {
		return n.File == s.d.File && n.Line == s.d.Line && strings.HasPrefix(n.Msg, "this server's names are regexes") ||
			slices.ContainsFunc(s.patterns, func(p string) bool { return strings.HasPrefix(n.Msg, fmt.Sprintf("server_name %q: regex", p)) })
	})
}
