package nginx

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/matcher/rewrite"
)

// Structural translation: each server block is written as
// [[server_rewrite]] and [[location]] tables, its steps copied as nginx's
// own text; what the location model does not run is left out piece by
// piece, with a note at its place (fit).

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

// access is the step that answers as a location's allow and deny do:
// `deny all` first is nginx's 403 for every request that reaches the
// access phase, which comes after the rewrite phase, so a `return 403`
// after the steps; nil when there are none or `allow all` comes first.
// Rules on client addresses before that,
// or a location whose steps can break into the access phase, are left
// out with a note.
func (t *translator) access(d *Directive) *Directive {
	// The first rule that matches decides: one on "all" before any on
	// an address decides every request.
	var deny *Directive
	for _, c := range d.Block {
		if c.Name != "deny" && c.Name != "allow" {
			continue
		}
		if len(c.Args) != 1 || c.Args[0] != "all" {
			t.m.note(c, "%s %s: nginx decides by the client's address here, which the location model does not; left out", c.Name, strings.Join(c.Args, " "))
			return nil
		}
		if c.Name == "deny" {
			deny = c
		}
		break
	}
	if deny == nil {
		return nil
	}
	for _, c := range d.Block {
		if c.Name == "break" || c.Name == "rewrite" && len(c.Args) == 3 && c.Args[2] == "break" || c.Name == "if" {
			t.m.note(deny, "deny all: nginx answers 403 after this location's steps, which can stop early here; left out")
			return nil
		}
	}
	return &Directive{Name: "return", Args: []string{"403"}, File: deny.File, Line: deny.Line}
}

// tryFallback reports whether d is a try_files whose fallback is a URI
// or =CODE, which the location model runs as nginx does when no file is
// found (redirectd has none); one that falls back to a named location
// gives the location that one's proxy_pass (tryNamed).
func tryFallback(d *Directive) bool {
	return d.Name == "try_files" && len(d.Args) > 1 && !strings.HasPrefix(d.Args[len(d.Args)-1], "@")
}

// tryRewrites reports whether l's try_files falls back to a named
// location that does not proxy (Drupal's `location @rewrite { rewrite
// ^/(.*)$ /index.php?q=$1; }`): the location model runs it as nginx does
// when no file is found, where one that proxies gives l its proxy_pass.
func tryRewrites(l *location, s *server) bool {
	n := s.named[l.tryNamed]
	return n != nil && n.pass == nil
}

// matchKinds maps a location modifier to its match key.
var matchKinds = map[string]string{"=": "exact", "": "prefix", "^~": "prefix_noregex", "~": "regex", "~*": "regex_ci"}

// structural writes s as the location model. What the model does not
// run is left out, each with a note at its place (fit); a server that
// nginx never chooses for a request with a Host is left out whole.
func (t *translator) structural(s *server, claimed nameClaims) {
	byDir := map[*Directive]*location{}
	for _, l := range s.locs {
		byDir[l.d] = l
	}
	for _, l := range s.named {
		byDir[l.d] = l
	}
	st := &Structural{Server: s.d, Scheme: s.scheme(t.m)}
	for _, c := range s.d.Block {
		switch {
		case stepNames[c.Name]:
			if r := t.runnable(c, s); r != nil {
				st.Steps = append(st.Steps, r)
			}
		case c.Name == "location":
			if sl := t.structLoc(c, byDir, s); sl != nil {
				st.Locations = append(st.Locations, sl)
			}
		}
	}
	for _, n := range append(slices.Clone(s.names), s.patterns...) {
		if !claimed.taken(s, n) {
			st.Hosts = append(st.Hosts, n)
		}
	}
	if s.dflt && len(st.Hosts) == 0 && len(t.m.servers) > 1 && !claimed.taken(s, noName) {
		st.Hosts = []string{noName}
	}
	st.Maps = t.mapsRead(writtenSteps(st.Steps, st.Locations)) // not those of an if left out
	st.Default = s.dflt && len(t.m.servers) > 1 && len(st.Hosts) > 0
	st.DefaultOn = s.dfltOn
	if st.Scheme == "" && s.dfltOn[0] != s.dfltOn[1] && t.m.ports[0] != "" && t.m.ports[1] != "" {
		st.DefaultScheme = [2]string{"http", "https"}[kindOf(s.dfltOn[1])]
	}
	switch {
	case len(t.m.servers) == 1:
		st.Hosts = nil // one server answers every host: its tables name none
	case len(st.Hosts) > 0:
	case len(s.names)+len(s.patterns) > 0:
		// nginx warns of the conflicting names and uses the first
		// server's; this one answers nothing.
		t.m.note(s.d, "server_name: every name of this server is an earlier server's on the same kind of port, and nginx chooses the first: this server answers no request; left out")
		t.paths = append(t.paths, fmt.Sprintf("%s: server %s: left out, nginx never chooses it", s.d.Source(), strings.Join(s.names, " ")))
		return
	default:
		t.m.note(s.d, "this server has no server_name a request's host can match and is not the default server: nginx sends it only requests without a Host; left out")
		t.paths = append(t.paths, fmt.Sprintf("%s: server: left out, it has no server_name a host can match", s.d.Source()))
		return
	}
	if !t.fit(st) {
		t.paths = append(t.paths, fmt.Sprintf("%s: %s: left out, the location model refuses it", s.d.Source(), serverLabel(s.d)))
		return
	}
	claimed.claim(s, st.Hosts)
	t.structs = append(t.structs, st)
	t.structSrv[s] = true
	t.paths = append(t.paths, fmt.Sprintf("%s: %s: [[server_rewrite]] and [[location]] tables (%d locations)", s.d.Source(), serverLabel(s.d), countLocs(st.Locations)))
	t.locationForm(s.d.Block)
	t.noteContent(st.Locations)
	t.noteAddHeaders(s.d.Block)
}

// fitStride spaces the lines fit gives each location's spec, so that an
// error's line says which location, and which of its steps, it is in.
const fitStride = 1 << 20

// fit makes st compile in the location model: each piece the model
// refuses (a step, a location, a map, a host name) is left out with the
// model's reason at its place, so that the rest is still written. The
// pieces are numbered through the lines of the specs compiled, so an
// error names its piece and each piece refused costs one compile; it
// reports false when an error names none, and st is then left out whole.
func (t *translator) fit(st *Structural) bool {
	for {
		var slots []fitSlot
		var walk func(ls *[]*StructLoc)
		walk = func(ls *[]*StructLoc) {
			for _, l := range *ls {
				slots = append(slots, fitSlot{l, ls})
				walk(&l.Locations)
			}
		}
		walk(&st.Locations)
		specs := hostSpecs([]*Structural{st})
		if len(specs) > 0 {
			numberSpec(&specs[0].Spec, slots)
		}
		for _, hs := range specs {
			for j := range hs.Spec.Maps {
				// fitMaps checked the entries: the steps need only
				// the variables, and a site's map of 42,000 keys
				// compiled once per piece took minutes.
				hs.Spec.Maps[j].Entries = ""
			}
		}
		_, err := rewrite.CompileHosts(specs)
		if err == nil {
			// The maps only steps left out read go too: the loader
			// refuses a map that no step reads.
			read := t.mapsRead(writtenSteps(st.Steps, st.Locations))
			st.Maps = slices.DeleteFunc(st.Maps, func(mp *nmap) bool { return !slices.Contains(read, mp) })
			return true
		}
		var re *rewrite.Error
		if !errors.As(err, &re) || !t.dropPiece(st, slots, re) {
			t.m.note(st.Server, "server: redirectd's location model refuses it (%v); left out", err)
			return false
		}
	}
}

// fitSlot is a location of the server fit compiles, and the list it is in.
type fitSlot struct {
	l  *StructLoc
	in *[]*StructLoc
}

// numberSpec gives the server's steps lines from 1 and the location of
// slot k lines from (k+1)*fitStride, its steps the lines after.
func numberSpec(spec *rewrite.Spec, slots []fitSlot) {
	for i := range spec.Steps {
		spec.Steps[i].Line = 1
	}
	k := 0
	var walk func(ls []rewrite.LocationSpec)
	walk = func(ls []rewrite.LocationSpec) {
		for i := range ls {
			k++
			ls[i].Line, ls[i].StepsLine = k*fitStride, k*fitStride+1
			walk(ls[i].Locations)
		}
	}
	walk(spec.Locations)
}

// lineIn is the index in ds of the directive written at line of their
// step text whose first line is base, -1 for none.
func lineIn(ds []*Directive, base, line int) int {
	for i, d := range ds {
		n := strings.Count(stepText([]*Directive{d}), "\n")
		if line >= base && line < base+n {
			return i
		}
		base += n
	}
	return -1
}

// dropPiece leaves out the piece of st that re names, with a note; it
// reports false when re names none.
func (t *translator) dropPiece(st *Structural, slots []fitSlot, re *rewrite.Error) bool {
	deciding := decidingVars(t.dirs)
	refused := func(d *Directive, what string) {
		// a set of a variable no deciding step reads changes no answer
		if d.Name == "set" && len(d.Args) == 2 && !deciding[strings.Trim(d.Args[0], "${}")] {
			t.m.noteAside(d, "%s: redirectd's location model refuses it (%s); %s; left out", what, re.Msg, notDecidingWhy(t.dirs, strings.Trim(d.Args[0], "${}")))
			return
		}
		t.m.note(d, "%s: redirectd's location model refuses it (%s); left out", what, re.Msg)
	}
	dropStep := func(steps *[]*Directive, base int) bool {
		i := lineIn(*steps, base, re.Line)
		if i < 0 {
			return false
		}
		refused((*steps)[i], directiveText((*steps)[i]))
		*steps = slices.Delete(*steps, i, i+1)
		return true
	}
	switch k := re.Line/fitStride - 1; {
	case re.Map != "":
		for i, mp := range st.Maps {
			if mp.name == re.Map {
				refused(mp.d, "map "+strings.Join(mp.d.Args, " "))
				mp.refused = true
				st.Maps = slices.Delete(st.Maps, i, i+1)
				return true
			}
		}
	case k >= 0 && k < len(slots) && re.Line == (k+1)*fitStride:
		sl := slots[k]
		refused(sl.l.D, "location "+strings.Join(sl.l.D.Args, " "))
		*sl.in = slices.DeleteFunc(*sl.in, func(x *StructLoc) bool { return x == sl.l })
		return true
	case k >= 0 && k < len(slots):
		return dropStep(&slots[k].l.Steps, (k+1)*fitStride+1)
	case re.Line > 0:
		return dropStep(&st.Steps, 1)
	case re.Key == "host":
		for i, h := range st.Hosts {
			if _, err := rewrite.CompileHosts([]rewrite.HostSpec{{Host: h}}); err != nil {
				t.m.note(st.Server, "server_name %s: redirectd's location model refuses it (%v); left out", h, err)
				st.Hosts = slices.Delete(st.Hosts, i, i+1)
				return len(st.Hosts) > 0
			}
		}
	}
	return false
}

// fileTests are nginx's if operators on files.
var fileTests = map[string]bool{"-f": true, "-d": true, "-e": true, "-x": true}

// ifRunnable are the directives the location model runs inside an if.
var ifRunnable = map[string]bool{"rewrite": true, "return": true, "if": true, "set": true, "break": true}

// runnable is step d as the location model runs it: an if whose block
// holds directives the model does not run inside an if (proxy_pass,
// error_page, add_header, ...) is written without them, each noted:
// left out where it decides a forward or an error's answer, a caveat
// otherwise; $server_name, which the model does not have, is written as
// the server's first name, its value in nginx. The rest of the server is
// still written as locations.
func (t *translator) runnable(d *Directive, s *server) *Directive {
	if !utf8.ValidString(directiveText(d)) {
		t.m.note(d, "%s: a byte that is not UTF-8, which a config's text cannot hold; left out", d.Name)
		return nil
	}
	if d.Name != "if" {
		return serverName(d, s)
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
			r := t.runnable(c, s)
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

// serverName is d with $server_name and ${server_name} in its arguments
// written as the server's first name ("" for none), as nginx sets it.
func serverName(d *Directive, s *server) *Directive {
	name := ""
	if len(s.names) > 0 {
		name = s.names[0]
	}
	r := strings.NewReplacer("${server_name}", name, "$server_name", name)
	var args []string
	for i, a := range d.Args {
		if b := r.Replace(a); b != a {
			if args == nil {
				args = slices.Clone(d.Args)
			}
			args[i] = b
		}
	}
	if args == nil {
		return d
	}
	c := *d
	c.Args = args
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

// structLoc converts location directive d, nil when the model of nginx
// refused it (its note says why).
func (t *translator) structLoc(d *Directive, byDir map[*Directive]*location, s *server) *StructLoc {
	l := byDir[d]
	var sl *StructLoc
	switch {
	case l == nil:
		return nil
	case l.mod == "@":
		sl = &StructLoc{D: d, Match: "named", Path: l.path[1:]}
	default:
		sl = &StructLoc{D: d, Match: matchKinds[l.mod], Path: l.path}
	}
	for _, c := range d.Block {
		switch {
		case c.Name == "proxy_intercept_errors" && len(c.Args) == 1:
			sl.Intercept = c.Args[0] == "on"
		case stepNames[c.Name], tryFallback(c), c.Name == "try_files" && tryRewrites(l, s), c.Name == "internal" && len(c.Args) == 0:
			if r := t.runnable(c, s); r != nil {
				sl.Steps = append(sl.Steps, r)
			}
		case c.Name == "location":
			if n := t.structLoc(c, byDir, s); n != nil {
				sl.Locations = append(sl.Locations, n)
			}
		}
	}
	if r := t.access(d); r != nil {
		sl.Steps = append(sl.Steps, r)
	}
	if l.pass != nil {
		// Its own proxy_pass, or that of the named location its
		// try_files falls back to (try_files $uri @app): nginx forwards
		// what it finds no file for, and redirectd, which has no files,
		// forwards it all (the try_files note says so). A proxy_pass
		// that cannot be a group is left out, its note says why.
		if g, ok := t.proxyGroup(l); ok {
			sl.Group = g
			_, rest, _ := strings.Cut(l.pass.Args[0], "://")
			if i := strings.IndexByte(rest, '/'); i >= 0 && l.re == nil && l.mod != "@" {
				sl.URI, sl.HasURI = rest[i:], true
			}
		}
	}
	return sl
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

// noteContent notes each location that neither proxies nor ends in a
// return: nginx answers what its steps leave with content or 404, where
// redirectd answers 404.
func (t *translator) noteContent(ls []*StructLoc) {
	for _, l := range ls {
		ends := len(l.Steps) > 0 && l.Steps[len(l.Steps)-1].Name == "return"
		// A try_files to a URI or named location (its own note says
		// so) passes on what the steps leave.
		tries := slices.ContainsFunc(l.Steps, func(d *Directive) bool { return tryFallback(d) && !strings.HasPrefix(d.Args[len(d.Args)-1], "=") })
		if l.Group == nil && !ends && !tries {
			t.m.note(l.D, "location %s: nginx answers the requests its steps leave itself (content, or 404); redirectd answers them 404", strings.Join(l.D.Args, " "))
		}
		t.noteContent(l.Locations)
	}
}

// noteAddHeaders notes each add_header of a server: locations send no
// header fields of their own.
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
		if used[mp] && !mp.refused {
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
	return rewrite.MapSpec{Line: mp.d.Line, Source: mp.d.Args[0], Variable: mp.d.Args[1], Entries: stepText(mp.lines()), EntriesLine: mp.d.Line + 1}
}

// lines are the map's lines as written: those the location model runs.
func (mp *nmap) lines() []*Directive {
	if mp.kept != nil {
		return *mp.kept
	}
	return mp.d.Block
}

// fitMaps leaves out each line of a map that the location model refuses
// (a regex it does not run), with the model's reason at its place, so
// that the rest of the map is still written; a map whose source the
// model refuses is left out whole. Each line refused costs one compile
// of the map, its line found from the error's.
func (t *translator) fitMaps() {
	deciding := decidingVars(t.dirs)
	for _, mp := range t.m.mapOrder() {
		// A map no deciding step reads (one for access_log if=) is
		// left out without blocking: it changes no answer.
		note, why := t.m.note, ""
		if !deciding[mp.name] {
			note, why = t.m.noteAside, "; "+notDecidingWhy(t.dirs, mp.name)
		}
		compiles := func(entries bool) *rewrite.Error {
			spec := mapSpec(mp)
			spec.EntriesLine = 1
			if !entries {
				spec.Entries = ""
			}
			_, err := rewrite.Compile(rewrite.Spec{Maps: []rewrite.MapSpec{spec}})
			var re *rewrite.Error
			if err != nil && !errors.As(err, &re) {
				re = &rewrite.Error{Msg: err.Error()}
			}
			return re
		}
		if re := compiles(false); re != nil {
			note(mp.d, "map %s: redirectd's location model refuses it (%s)%s; left out", strings.Join(mp.d.Args, " "), re.Msg, why)
			mp.refused = true
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(mp.d.Block), func(e *Directive) bool {
			if utf8.ValidString(directiveText(e)) {
				return false
			}
			note(e, "map entry: a byte that is not UTF-8, which a config's text cannot hold%s; left out", why)
			return true
		})
		mp.kept = &kept
		for re := compiles(true); re != nil; re = compiles(true) {
			i := lineIn(kept, 1, re.Line)
			if i < 0 {
				note(mp.d, "map %s: redirectd's location model refuses it (%s)%s; left out", strings.Join(mp.d.Args, " "), re.Msg, why)
				mp.refused = true
				break
			}
			note(kept[i], "map entry %s: redirectd's location model refuses it (%s)%s; left out", kept[i].Name, re.Msg, why)
			kept = slices.Delete(kept, i, i+1)
		}
	}
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

// serverLabel is how the report and the written comments name a server
// block: "server" and its server_name words as written ("_" and regex
// names included), which the reader finds in the file, whatever hosts
// the tables end up listing (none where one server answers every host).
func serverLabel(d *Directive) string {
	var names []string
	for _, c := range d.Block {
		if c.Name == "server_name" {
			names = append(names, c.Args...)
		}
	}
	if len(names) == 0 {
		return "server (no server_name)"
	}
	return "server " + strings.Join(names, " ")
}
