package nginx

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/redirectd/redirectd/matcher"
)

// Note is something the import could not translate, or translated with a
// caveat, at an nginx file and line.
type Note struct {
	File string
	Line int
	Msg  string
	// Kind groups the note in the report: NoteLeftOut, NoteRewritten,
	// NoteCaveat or NoteDiffers.
	Kind string
}

// The kinds of notes, as the report names them.
const (
	NoteLeftOut   = "left out"
	NoteRewritten = "written as an equivalent"
	NoteCaveat    = "translated with a caveat"
	NoteDiffers   = "answers that differ"
)

// noteKind classifies a message: the import's messages end with "left
// out" when a construct is not translated, and the self-check's start with
// "differs:".
func noteKind(msg string) string {
	switch {
	case strings.HasPrefix(msg, "differs:") || strings.HasPrefix(msg, "... and "):
		return NoteDiffers
	case strings.Contains(msg, "left out"):
		return NoteLeftOut
	}
	return NoteCaveat
}

func (n Note) String() string {
	if n.File == "" {
		return n.Msg
	}
	return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Msg)
}

// model is what the import understands of an nginx config.
type model struct {
	servers []*server
	maps    map[string]*nmap // by variable name, without '$'
	notes   []Note
	// leftOut counts, by map name, the entries of each map left out, and
	// leftOutAt holds those entries: the self-check does not report
	// again that the import answers them differently (values.go).
	leftOut   map[string]int
	leftOutAt map[*Directive]bool
}

func (m *model) note(d *Directive, format string, args ...any) {
	n := Note{Msg: fmt.Sprintf(format, args...)}
	n.Kind = noteKind(n.Msg)
	if d != nil {
		n.File, n.Line = d.File, d.Line
	}
	m.notes = append(m.notes, n)
}

// noteRewritten records a construct written as an equivalent.
func (m *model) noteRewritten(d *Directive, format string, args ...any) {
	m.note(d, format, args...)
	m.notes[len(m.notes)-1].Kind = NoteRewritten
}

// server is one server block.
type server struct {
	d *Directive
	// headers are its add_header directives (headers.go).
	headers []addHeader
	names   []string // server_name values usable as hosts, as written
	// hosts are the redirectd hosts of its rules; nil means any host.
	hosts []string
	pre   []*step // rewrite-phase directives at server level, in order
	locs  []*location
	dflt  bool // nginx's default server for requests no name matches
}

// location is one location block directly inside a server.
type location struct {
	d     *Directive
	mod   string // "=", "^~", "" (plain prefix), "~" or "~*"
	path  string // for =, ^~ and plain prefixes
	re    *nginxRegex
	steps []*step
	// headers are its add_header directives; hasHeaders is set when it
	// has any, even one left out, since nginx then inherits none.
	headers    []addHeader
	hasHeaders bool
}

// kindName is how the location's rules are counted.
func (l *location) kindName() string {
	switch l.mod {
	case "=":
		return "location ="
	case "":
		return "location (prefix)"
	}
	return "location " + l.mod
}

type stepKind uint8

const (
	stepReturn  stepKind = iota // return CODE [URL]
	stepRewrite                 // rewrite REGEX REPL [flag]
	stepIfMap                   // if ($map) { return CODE ...$map...; }
	stepStop                    // anything that ends with a non-redirect answer or an internal rewrite
)

// step is one rewrite-phase directive, in a server or a location.
type step struct {
	d      *Directive
	kind   stepKind
	status int    // redirect status; 0 for a step that does not redirect
	target []part // return URL or rewrite replacement
	re     *nginxRegex
	// addArgs: a rewrite appends the request's arguments (its replacement
	// does not end with '?').
	addArgs bool
	mapv    *nmap // stepIfMap: the map whose variable is tested
	loc     *location
	// uncond: a return at this place answers every request reaching it.
	uncond bool
	// zeroFalse: `if ($v)` is false for "0" as well as "", `if ($v != "")`
	// only for "".
	zeroFalse bool
	// always: a stepIfMap without an if (`return 301 $v;`, `rewrite ^
	// $v permanent;`): it redirects whatever the value.
	always bool
	// argsAmp: a rewrite appending the arguments joins them with '&'
	// rather than '?'. nginx decides this from the replacement as
	// written (a literal '?' in it), not from the value it produces.
	argsAmp bool
}

// falseValue reports whether a map value makes the step's if false.
func (s *step) falseValue(v string) bool {
	return v == "" || v == "0" && s.zeroFalse
}

// form names the nginx construct a rule comes from, for the counts.
func (s *step) form() string {
	switch {
	case s.kind == stepIfMap:
		if s.mapv.source == "host" {
			return "map entry (host)"
		}
		return "map entry"
	case s.kind == stepRewrite:
		return "rewrite"
	case s.loc == nil:
		return "return (server)"
	}
	return s.loc.kindName()
}

// nmap is a map block on $uri, $request_uri, $host, or a host and a URI
// together ($host$uri, $host$request_uri, $scheme://$host$request_uri).
type nmap struct {
	d *Directive
	// source is the tested value, normalised: "uri", "request_uri",
	// "host", "host$uri", "host$request_uri", "scheme://$host$uri" or
	// "scheme://$host$request_uri".
	source string
	src    []part // source as a template, for the model's lookups
	// byHost: keys start with a host (after "http://" when scheme is set).
	byHost, scheme bool
	// requestURI: the path part is $request_uri, path and query as sent.
	requestURI bool
	name       string
	hostnames  bool
	dflt       []part
	exact      []*mapEntry // in file order; keys lower-cased
	wild       []*mapEntry // hostnames: ".x" or "*.x" keys, stored as ".x" with apex
	regex      []*mapEntry
	bad        bool // used but not translatable
	// idx speeds up the model's lookups in big maps; built on first use.
	idx *mapIndex
}

type mapEntry struct {
	d   *Directive
	key string // an exact key: the path (and query) part, lower-cased
	// host is the host part of a key of a map on a host and a URI.
	host  string
	apex  bool // hostnames ".x": matches x itself too
	re    *nginxRegex
	value []part
}

// build reads the http block(s) of dirs into a model.
func build(dirs []*Directive) *model {
	m := &model{maps: map[string]*nmap{}}
	var walk func(ds []*Directive)
	walk = func(ds []*Directive) {
		for _, d := range ds {
			switch {
			case d.Name == "http" && d.IsBlock:
				walk(d.Block)
			case d.Name == "map" && d.IsBlock:
				m.readMap(d)
			case d.Name == "server" && d.IsBlock:
				// At the top, a file holding only server blocks
				// (conf.d/site.conf) is read as the inside of http.
				m.readServer(d)
			}
		}
	}
	walk(dirs)
	m.pickDefault()
	return m
}

func (m *model) readMap(d *Directive) {
	if len(d.Args) != 2 || !strings.HasPrefix(d.Args[0], "$") || !strings.HasPrefix(d.Args[1], "$") {
		m.note(d, "map takes a source and a variable, both starting with '$'")
		return
	}
	mp := &nmap{d: d, name: strings.Trim(d.Args[1], "${}")}
	mp.readSource(d.Args[0])
	for _, e := range d.Block {
		if e.IsBlock {
			m.note(e, "unexpected block in map")
			continue
		}
		switch {
		case e.Name == "hostnames" && len(e.Args) == 0:
			mp.hostnames = true
			continue
		case e.Name == "volatile" && len(e.Args) == 0:
			continue
		case e.Name == "default" && len(e.Args) == 1:
			if p, err := parseTarget(e.Args[0]); err != nil {
				m.note(e, "map default: %v", err)
			} else {
				mp.dflt = p
			}
			continue
		}
		if len(e.Args) != 1 {
			m.note(e, "map entry %q: an entry is `key value;`", e.Name)
			continue
		}
		val, err := parseTarget(e.Args[0])
		if err != nil {
			m.entryLeftOut(mp, e, "map entry %q: %v; left out", e.Name, err)
			continue
		}
		ent := &mapEntry{d: e, key: e.Name, value: val}
		switch {
		case strings.HasPrefix(e.Name, "~"):
			src, ci := e.Name[1:], false
			if strings.HasPrefix(src, "*") {
				src, ci = src[1:], true
			}
			if mp.byHost {
				host, rest, err := splitHostRegex(src, mp.scheme, ci)
				if err != nil {
					m.entryLeftOut(mp, e, "map entry %s: %v; left out", e.Name, err)
					continue
				}
				ent.host, src = host, rest
			}
			re, err := m.compileRegex(e, src, ci)
			if err != nil {
				m.entryLeftOut(mp, e, "map entry %s: %v; left out", e.Name, err)
				continue
			}
			ent.re = re
			mp.regex = append(mp.regex, ent)
		case mp.hostnames && (strings.HasPrefix(e.Name, ".") || strings.HasPrefix(e.Name, "*.")):
			ent.apex = e.Name[0] == '.'
			ent.key = lowerASCII(strings.TrimPrefix(e.Name, "*"))
			mp.wild = append(mp.wild, ent)
		case mp.hostnames && strings.HasSuffix(e.Name, ".*"):
			m.entryLeftOut(mp, e, "map entry %q: a wildcard at the end of a host name has no redirectd equivalent; left out", e.Name)
		default:
			ent.key = exactKey(e.Name, mp.hostnames)
			if mp.byHost {
				host, path, err := splitHostKey(ent.key, mp.scheme)
				if err != nil {
					m.entryLeftOut(mp, e, "map entry %s: %v; left out", e.Name, err)
					continue
				}
				ent.host, ent.key = host, path
			}
			mp.exact = append(mp.exact, ent)
		}
	}
	m.maps[mp.name] = mp
}

func (m *model) readServer(d *Directive) {
	s := &server{d: d}
	for _, c := range d.Block {
		switch c.Name {
		case "server_name":
			for _, n := range c.Args {
				if n == "" || n == "_" || strings.HasPrefix(n, "~") || strings.HasSuffix(n, ".*") || strings.Contains(n, "$") {
					if n != "" && n != "_" {
						m.note(c, "server_name %q: regex and trailing-wildcard names have no redirectd equivalent; left out", n)
					}
					continue
				}
				s.names = append(s.names, strings.ToLower(strings.TrimSuffix(n, ".")))
			}
		case "listen":
			for _, a := range c.Args {
				if a == "default_server" || a == "default" {
					s.dflt = true
				}
			}
		case "location":
			m.readLocation(s, c)
		case "add_header":
			if h, ok := m.readAddHeader(c); ok {
				s.headers = append(s.headers, h)
			}
		default:
			if st := m.readStep(c, nil); st != nil {
				s.pre = append(s.pre, st)
			}
		}
	}
	m.servers = append(m.servers, s)
}

func (m *model) readLocation(s *server, d *Directive) {
	if !d.IsBlock || len(d.Args) == 0 || len(d.Args) > 2 {
		m.note(d, "location takes an optional modifier and a path or regex, then a block")
		return
	}
	l := &location{d: d}
	if len(d.Args) == 2 {
		l.mod, l.path = d.Args[0], d.Args[1]
	} else if a := d.Args[0]; strings.HasPrefix(a, "@") {
		return // a named location is reached only by internal redirects
	} else {
		l.path = a
		// nginx also reads "=/x", "~*\.php$" and "^~/x" written as one word.
		for _, mod := range []string{"^~", "~*", "=", "~"} {
			if strings.HasPrefix(a, mod) && len(a) > len(mod) {
				l.mod, l.path = mod, a[len(mod):]
				break
			}
		}
	}
	switch l.mod {
	case "=", "^~", "":
		if !utf8.ValidString(l.path) {
			m.note(d, "location %s: the path is not UTF-8; left out", l.mod)
			return
		}
	case "~", "~*":
		re, err := m.compileRegex(d, l.path, l.mod == "~*")
		if err != nil {
			m.note(d, "location %s: %v; its redirects are left out", l.mod, err)
			return
		}
		l.re = re
	default:
		m.note(d, "location modifier %q is not one nginx knows", l.mod)
		return
	}
	for _, c := range d.Block {
		if c.Name == "location" {
			m.note(c, "nested location: left out (only locations directly inside server are translated)")
			continue
		}
		if c.Name == "add_header" {
			l.hasHeaders = true
			if h, ok := m.readAddHeader(c); ok {
				l.headers = append(l.headers, h)
			}
			continue
		}
		if st := m.readStep(c, l); st != nil {
			l.steps = append(l.steps, st)
		}
	}
	s.locs = append(s.locs, l)
}

// readStep reads one directive of the rewrite phase; other directives
// (root, proxy_pass, ...) return nil: they serve content, which the model
// treats as "no redirect".
func (m *model) readStep(d *Directive, l *location) *step {
	switch d.Name {
	case "return":
		return m.alwaysMap(m.readReturn(d, l, d.Args))
	case "rewrite":
		if st := m.readRewrite(d, l); st != nil {
			return m.alwaysMap(st)
		}
		return nil
	case "if":
		return m.readIf(d, l)
	case "set", "break", "rewrite_log", "uninitialized_variable_warn":
		if d.Name == "set" {
			m.note(d, "set: variables set at run time are not translated; rules using them are left out")
		}
		if d.Name == "break" {
			return &step{d: d, kind: stepStop, loc: l}
		}
	}
	return nil
}

func (m *model) readReturn(d *Directive, l *location, args []string) *step {
	st := &step{d: d, kind: stepStop, loc: l, uncond: true}
	if len(args) == 0 || len(args) > 2 {
		m.note(d, "return takes a code and a URL or text, or a URL alone")
		return st
	}
	code, err := strconv.Atoi(args[0])
	target := ""
	switch {
	case err != nil && len(args) == 1:
		code, target = 302, args[0] // return URL: a 302
	case err != nil:
		m.note(d, "return code %q is not a number", args[0])
		return st
	case len(args) == 2:
		target = args[1]
	}
	if code == 410 || code == 451 {
		// An answer with no Location, which redirectd rules give too.
		if target != "" {
			m.note(d, "return %d with a text: redirectd answers %d with its own short text (%q); translated", code, code, matcher.StatusText(code))
		}
		st.kind, st.status = stepReturn, code
		return st
	}
	if code != 301 && code != 302 && code != 303 && code != 307 && code != 308 {
		return st // an answer that is not a redirect
	}
	p, err := parseTarget(target)
	if err != nil {
		m.note(d, "return: %v", err)
		return st
	}
	st.kind, st.status, st.target = stepReturn, code, p
	return st
}

func (m *model) readRewrite(d *Directive, l *location) *step {
	if len(d.Args) < 2 || len(d.Args) > 3 {
		m.note(d, "rewrite takes a regex, a replacement and an optional flag")
		return nil
	}
	flag := ""
	if len(d.Args) == 3 {
		flag = d.Args[2]
	}
	repl := d.Args[1]
	absolute := strings.HasPrefix(repl, "http://") || strings.HasPrefix(repl, "https://") || strings.HasPrefix(repl, "$scheme")
	st := &step{d: d, kind: stepRewrite, loc: l}
	switch {
	case flag == "permanent":
		st.status = 301
	case flag == "redirect" || absolute:
		// An absolute replacement redirects whatever the flag.
		st.status = 302
	default:
		m.note(d, "rewrite %s %s %s: an internal rewrite (not permanent or redirect) changes the URI nginx goes on with; left out, and requests it matches may be answered differently", d.Args[0], repl, flag)
		st.kind = stepStop
	}
	re, err := m.compileRegex(d, d.Args[0], false)
	if err != nil {
		m.note(d, "rewrite: %v; left out", err)
		return nil
	}
	st.re = re
	if st.kind == stepStop {
		return st
	}
	st.addArgs = true
	if strings.HasSuffix(repl, "?") {
		repl, st.addArgs = repl[:len(repl)-1], false
	}
	if st.target, err = parseTarget(repl); err != nil {
		m.note(d, "rewrite: %v; left out", err)
		return nil
	}
	for _, p := range st.target {
		st.argsAmp = st.argsAmp || p.kind == partLit && strings.Contains(p.text, "?")
	}
	return st
}

// readIf reads the forms of if the import translates: a test of a map
// variable, `if ($v)` or `if ($v != "")`, whose block returns a redirect
// or rewrites every path to one, using the variable.
func (m *model) readIf(d *Directive, l *location) *step {
	cond := ifCondition(d.Args)
	ok := len(cond) == 1 || len(cond) == 3 && cond[1] == "!=" && cond[2] == ""
	var mp *nmap
	if ok && strings.HasPrefix(cond[0], "$") {
		mp = m.maps[strings.Trim(cond[0][1:], "{}")]
	}
	if !ok || mp == nil || len(d.Block) != 1 || d.Block[0].Name != "return" && d.Block[0].Name != "rewrite" {
		m.note(d, "if %s: only `if ($map_variable) { return 30x ...; }` and `if ($map_variable) { rewrite ^ ... permanent; }` are translated; left out", strings.Join(cond, " "))
		return nil
	}
	inner := d.Block[0]
	var st *step
	if inner.Name == "return" {
		st = m.readReturn(inner, l, inner.Args)
		if st.kind != stepReturn {
			return nil
		}
	} else {
		st = m.readRewrite(inner, l)
		if st == nil || st.kind != stepRewrite {
			return nil
		}
		if !isMatchAll(st.re) || hasCaptureRef(st.target) {
			m.note(d, "if ($%s): the rewrite inside answers only some paths, or uses its captures; only `rewrite ^ $%s ...` and `rewrite ^(.*)$ $%s ...` are translated; left out", mp.name, mp.name, mp.name)
			return nil
		}
	}
	if !hasVar(st.target, mp.name) {
		m.note(d, "if ($%s): the %s inside does not use $%s; left out", mp.name, inner.Name, mp.name)
		return nil
	}
	if mp.bad {
		m.note(mp.d, "map on %s: only maps on $uri, $request_uri, $host, $host$uri, $host$request_uri and $scheme://$host$request_uri are translated; left out", mp.d.Args[0])
		return nil
	}
	st.kind, st.mapv, st.d, st.uncond, st.zeroFalse = stepIfMap, mp, d, false, len(cond) == 1
	return st
}

// alwaysMap turns `return 30x $v;` or `rewrite ^ $v permanent;` (st, read
// as a plain return or rewrite) into a map step that redirects whatever
// the map gives: its entries, then its default, answer every request.
func (m *model) alwaysMap(st *step) *step {
	var mp *nmap
	for _, p := range st.target {
		if p.kind == partVar && m.maps[p.text] != nil {
			mp = m.maps[p.text]
			break
		}
	}
	if mp == nil || st.kind == stepRewrite && (!isMatchAll(st.re) || hasCaptureRef(st.target)) {
		return st // its target's variable is noted where it is translated
	}
	if mp.bad {
		m.note(mp.d, "map on %s: only maps on $uri, $request_uri, $host, $host$uri, $host$request_uri and $scheme://$host$request_uri are translated; left out", mp.d.Args[0])
		return &step{d: st.d, kind: stepStop, loc: st.loc}
	}
	st.kind, st.mapv, st.always, st.uncond = stepIfMap, mp, true, false
	return st
}

func hasCaptureRef(parts []part) bool {
	for _, p := range parts {
		if p.kind == partCapture {
			return true
		}
	}
	return false
}

// pickDefault marks the default server and sets every server's hosts.
func (m *model) pickDefault() {
	if len(m.servers) == 0 {
		return
	}
	def := m.servers[0]
	for _, s := range m.servers {
		if s.dflt {
			def = s
			break
		}
	}
	def.dflt = true
	seen := map[string]*server{}
	for _, s := range m.servers {
		if len(m.servers) == 1 || len(s.names) == 0 {
			s.hosts = nil // any host: the only server, or one without names
			continue
		}
		for _, n := range s.names {
			var hosts []string
			if strings.HasPrefix(n, ".") {
				hosts = []string{n[1:], "*" + n}
			} else {
				hosts = []string{n}
			}
			for _, h := range hosts {
				if o := seen[h]; o == s {
					continue
				} else if o != nil {
					m.note(s.d, "server_name %s is also a name of the server at %s; nginx uses the first, so this one is left out", h, o.d.Source())
					continue
				}
				seen[h] = s
				s.hosts = append(s.hosts, h)
			}
		}
	}
	if len(m.servers) > 1 && def.hosts != nil {
		m.note(def.d, "nginx sends requests for hosts that no server_name names to this default server; its rules are written for its own names, so redirectd answers other hosts 404")
	}
}

// ifCondition returns an if's condition without its parentheses:
// "($a)", "( $a )" and "($a != "")" (which nginx reads as "($a", "!=", "",
// ")") all lose them.
func ifCondition(args []string) []string {
	c := append([]string(nil), args...)
	if len(c) > 0 {
		if c[0] == "(" {
			c = c[1:]
		} else {
			c[0] = strings.TrimPrefix(c[0], "(")
		}
	}
	if n := len(c); n > 0 {
		if c[n-1] == ")" {
			c = c[:n-1]
		} else {
			c[n-1] = strings.TrimSuffix(c[n-1], ")")
		}
	}
	return c
}
