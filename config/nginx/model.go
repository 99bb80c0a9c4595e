package nginx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/redirectd/redirectd/config/importer"
)

// Note is something the import could not translate, or translated with
// a caveat, at an nginx file and line.
type Note = importer.Note

// noteKind classifies a message: the import's messages end with "left
// out" when a construct is not translated, and the self-check's start with
// "differs:".
func noteKind(msg string) string {
	switch {
	case strings.HasPrefix(msg, "differs:") || strings.HasPrefix(msg, "... and "):
		return importer.Differs
	case strings.Contains(msg, "left out"):
		return importer.LeftOut
	}
	return importer.Caveat
}

// model is what the import understands of an nginx config.
type model struct {
	servers []*server
	maps    map[string]*nmap // by variable name, without '$'
	notes   []Note
	// aside are the notes on what is left out without changing an
	// answer: a map or set no deciding step reads (deciding.go).
	aside map[Note]bool
	// ports are the plain (0) and TLS (1) ports redirectd keeps: the
	// first of each kind that a listen names; "" for none.
	ports [2]string
	// addrs are the listen addresses of those ports, as written.
	addrs [2]string
	// schemed: servers listen on both kinds and some on one kind only,
	// which gets rules for its scheme alone (when.scheme).
	schemed bool
	// certs are the ssl_certificate and ssl_certificate_key pairs, in
	// order, each once.
	certs []cert
	// upstreams are the upstream blocks by name, and httpProxy the
	// proxy_* directives of the http block, which servers inherit
	// (proxy.go).
	upstreams map[string]*upstreamBlock
	httpProxy *proxyLevel
	// keepSlashes is merge_slashes off, for $uri.
	keepSlashes bool
}

// cert is one server's ssl_certificate and ssl_certificate_key.
type cert struct {
	d         *Directive // the first of the pair
	srv       *server
	file, key string
}

func (m *model) note(d *Directive, format string, args ...any) {
	n := Note{Msg: fmt.Sprintf(format, args...)}
	n.Kind = noteKind(n.Msg)
	if d != nil {
		n.File, n.Line = d.File, d.Line
	}
	m.notes = append(m.notes, n)
}

// noteAside notes what is left out without changing whether or where a
// request is redirected or forwarded: Blocking does not count it.
func (m *model) noteAside(d *Directive, format string, args ...any) {
	m.note(d, format, args...)
	if m.aside == nil {
		m.aside = map[Note]bool{}
	}
	m.aside[m.notes[len(m.notes)-1]] = true
}

// server is one server block.
type server struct {
	d     *Directive
	names []string // server_name values usable as hosts, as written
	// hosts are the redirectd hosts of its rules; nil means any host.
	hosts []string
	pre   []*step // rewrite-phase directives at server level, in order
	// locs are all its locations, nested ones after their parent; top
	// are those directly inside the server.
	locs []*location
	top  []*location
	dflt bool // nginx's default server for requests no name matches
	// on says whether it listens on a plain (0) or TLS (1) port;
	// dfltOn, whether it is the default server of that kind, and
	// dfltFlag, whether a listen of that kind says default_server.
	on, dfltOn, dfltFlag [2]bool
	sslOn                bool // `ssl on;`
	// patterns are its regex and trailing-wildcard names, which only
	// the location model's hosts say.
	patterns []string
	// proxy holds its proxy_* directives (proxy.go); named are its
	// named locations (location @app), by name.
	proxy *proxyLevel
	named map[string]*location
}

// kindOf is the index of on for a request over TLS or not.
func kindOf(https bool) int {
	if https {
		return 1
	}
	return 0
}

// scheme is the when.scheme of the rules of s: "http" or "https" for a
// server on one kind of port when the config has both, else "".
func (s *server) scheme(m *model) string {
	switch {
	case !m.schemed || s.on[0] && s.on[1]:
		return ""
	case s.on[1]:
		return "https"
	}
	return "http"
}

// location is one location block, inside a server or another location.
type location struct {
	d *Directive
	// parent is the enclosing location, nil directly inside the server;
	// children are the locations nested in it, in order.
	parent   *location
	children []*location
	mod      string // "=", "^~", "" (plain prefix), "~" or "~*"
	path     string // for =, ^~ and plain prefixes
	re       *nginxRegex
	steps    []*step
	// pass is its proxy_pass, nil for none; proxy holds its other
	// proxy_* directives (proxy.go).
	pass  *Directive
	proxy *proxyLevel
	// backend: it passes requests to a backend (proxy_pass,
	// fastcgi_pass, ...), which makes nginx redirect its path without
	// the final slash (autoRedirects).
	backend bool
	// tryNamed is the named location a try_files ends with ("@app").
	tryNamed string
}

type stepKind uint8

const (
	stepReturn  stepKind = iota // return CODE [URL]
	stepRewrite                 // rewrite REGEX REPL [flag]
	stepIfMap                   // if ($map) { return CODE ...$map...; }
	stepStop                    // anything that ends with a non-redirect answer or an internal rewrite
	stepIfHost                  // if ($host = NAME) { return 30x URL; }
	stepIf                      // any other if: its condition, then its block (emulate_if.go)
	stepSet                     // set $var value
	stepOpaque                  // a step the model cannot follow: the answer is unknown
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
	mapv    *nmap  // stepIfMap: the map whose variable is tested
	host    string // stepIfHost: the name compared, lower case
	loc     *location
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
	// cond is a stepIf's condition, block its steps; setVar and setVal
	// are a stepSet's variable (without '$') and value.
	cond   *ifCond
	block  []*step
	setVar string
	setVal []part
}

// falseValue reports whether a map value makes the step's if false.
func (s *step) falseValue(v string) bool {
	return v == "" || v == "0" && s.zeroFalse
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
	bad        bool // a source the model does not look up
	// partial: an entry the model cannot read (the location model runs
	// the map as written), so the self-check does not ask about it.
	partial bool
	// kept, when set, are the lines written, those the location model
	// runs; refused, a map the model does not run at all (fitMaps).
	kept    *[]*Directive
	refused bool
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
	m := &model{maps: map[string]*nmap{}, upstreams: map[string]*upstreamBlock{}, httpProxy: &proxyLevel{}}
	var walk func(ds []*Directive)
	walk = func(ds []*Directive) {
		for _, d := range ds {
			switch {
			case m.httpProxy.add(d):
			case d.Name == "http" && d.IsBlock:
				walk(d.Block)
			case d.Name == "map" && d.IsBlock:
				m.readMap(d)
			case d.Name == "upstream" && d.IsBlock:
				m.readUpstream(d)
			case d.Name == "server" && d.IsBlock:
				// At the top, a file holding only server blocks
				// (conf.d/site.conf) is read as the inside of http.
				m.readServer(d)
			}
		}
	}
	walk(dirs)
	m.keepSlashes = anyDirective(dirs, "merge_slashes", "off")
	m.pickDefault()
	return m
}

func (m *model) readMap(d *Directive) {
	if len(d.Args) != 2 || !strings.HasPrefix(d.Args[0], "$") || !strings.HasPrefix(d.Args[1], "$") {
		m.note(d, "map takes a source and a variable, both starting with '$'; left out")
		return
	}
	mp := &nmap{d: d, name: strings.Trim(d.Args[1], "${}")}
	mp.readSource(d.Args[0])
	for _, e := range d.Block {
		if e.IsBlock {
			mp.partial = true
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
				mp.partial = true
			} else {
				mp.dflt = p
			}
			continue
		}
		if len(e.Args) != 1 {
			mp.partial = true
			continue
		}
		val, err := parseTarget(e.Args[0])
		if err != nil {
			mp.partial = true
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
					mp.partial = true
					continue
				}
				ent.host, src = host, rest
			}
			re, err := compileRegex(src, ci)
			if err != nil {
				mp.partial = true
				continue
			}
			ent.re = re
			mp.regex = append(mp.regex, ent)
		case mp.hostnames && (strings.HasPrefix(e.Name, ".") || strings.HasPrefix(e.Name, "*.")):
			ent.apex = e.Name[0] == '.'
			ent.key = lowerASCII(strings.TrimPrefix(e.Name, "*"))
			mp.wild = append(mp.wild, ent)
		case mp.hostnames && strings.HasSuffix(e.Name, ".*"):
			mp.partial = true
		default:
			ent.key = exactKey(e.Name, mp.hostnames)
			if mp.byHost {
				host, path, err := splitHostKey(ent.key, mp.scheme)
				if err != nil {
					mp.partial = true
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
	s := &server{d: d, proxy: &proxyLevel{parent: m.httpProxy}}
	for _, c := range d.Block {
		// The old `ssl on;` makes every listen of the server a TLS one.
		s.sslOn = s.sslOn || c.Name == "ssl" && len(c.Args) == 1 && c.Args[0] == "on"
	}
	for _, c := range d.Block {
		switch c.Name {
		case "server_name":
			for _, n := range c.Args {
				if n == "" || n == "_" || strings.HasPrefix(n, "~") || strings.HasSuffix(n, ".*") || strings.Contains(n, "$") {
					if n != "" && n != "_" {
						if strings.HasPrefix(n, "~") || !strings.Contains(n, "$") {
							s.patterns = append(s.patterns, n)
						}
					}
					continue
				}
				name := strings.ToLower(strings.TrimSuffix(n, "."))
				if bare := strings.TrimPrefix(strings.TrimPrefix(name, "*."), "."); bare == "" || strings.ContainsAny(bare, "*/:?#@ \t[]\"'\\") {
					// nginx takes any word; a Host header never holds these.
					m.note(c, "server_name %q is not a host name a request can carry; left out", n)
					continue
				}
				s.names = append(s.names, name)
			}
		case "listen":
			m.readListen(s, c)
		case "ssl_certificate", "ssl_certificate_key":
			m.readCert(s, c)
		case "location":
			m.readLocation(s, c)
		default:
			if m.readContent(c, s, nil) {
				continue
			}
			if st := m.readStep(c, nil); st != nil {
				s.pre = append(s.pre, st)
			}
		}
	}
	m.tryNamed(s)
	m.autoRedirects(s)
	if !s.on[0] && !s.on[1] {
		s.on[0] = true // nginx's default: *:80
		if m.ports[0] == "" {
			m.addrs[0] = "80"
		}
		m.keepPort(nil, "80", 0)
	}
	m.servers = append(m.servers, s)
}

// readListen reads the port of a listen and whether it is a TLS one
// (ssl) and the default server's. redirectd has one plain and one TLS
// listener: ports past the first of a kind are noted, and their servers
// are answered as if on the first.
func (m *model) readListen(s *server, d *Directive) {
	if len(d.Args) == 0 {
		m.note(d, "listen takes an address or port")
		return
	}
	addr, k, dflt := d.Args[0], 0, false
	if s.sslOn {
		k = 1
	}
	for _, a := range d.Args[1:] {
		switch a {
		case "ssl":
			k = 1
		case "default_server", "default":
			dflt = true
		}
	}
	if strings.HasPrefix(addr, "unix:") {
		m.note(d, "listen %s: redirectd listens on TCP ports only; this server is read as listening on the %s port", addr, [2]string{"plain", "TLS"}[k])
		addr = ""
	}
	port := addr
	if i := strings.LastIndexByte(addr, ':'); i >= 0 && !strings.HasSuffix(addr, "]") {
		port = addr[i+1:]
	} else if strings.Trim(addr, "0123456789") != "" {
		port = [2]string{"80", "443"}[k] // an address without a port
	}
	s.on[k] = true
	s.dfltFlag[k] = s.dfltFlag[k] || dflt
	if m.ports[k] == "" {
		m.addrs[k] = addr
	}
	m.keepPort(d, port, k)
}

// keepPort records a port of kind k, noting one past the first.
func (m *model) keepPort(d *Directive, port string, k int) {
	switch {
	case port == "" || m.ports[k] == port:
	case m.ports[k] == "":
		m.ports[k] = port
	default:
		kind := [2]string{"plain", "TLS"}[k]
		m.note(d, "listen %s: redirectd has one %s listener, and nginx's %s port %s comes first; requests to port %s are answered as those to port %s (from all the servers of both)",
			port, kind, kind, m.ports[k], port, m.ports[k])
	}
}

// readCert keeps a server's certificate and key for [[tls.certificate]].
func (m *model) readCert(s *server, d *Directive) {
	if len(d.Args) != 1 || strings.Contains(d.Args[0], "$") || strings.HasPrefix(d.Args[0], "data:") || strings.HasPrefix(d.Args[0], "engine:") {
		m.note(d, "%s: only a file name is translated into [[tls.certificate]]; left out", directiveText(d))
		return
	}
	var c *cert
	if n := len(m.certs); n > 0 && m.certs[n-1].srv == s {
		c = &m.certs[n-1]
	}
	if c == nil || (d.Name == "ssl_certificate" && c.file != "") || (d.Name == "ssl_certificate_key" && c.key != "") {
		m.certs = append(m.certs, cert{d: d, srv: s})
		c = &m.certs[len(m.certs)-1]
	}
	if d.Name == "ssl_certificate" {
		c.file = d.Args[0]
	} else {
		c.key = d.Args[0]
	}
}

func (m *model) readLocation(s *server, d *Directive) {
	m.readLocationIn(s, nil, d)
}

func (m *model) readLocationIn(s *server, parent *location, d *Directive) {
	if parent != nil && parent.mod == "=" {
		m.note(d, "location inside an exact location: nginx refuses it; left out")
		return
	}
	if !d.IsBlock || len(d.Args) == 0 || len(d.Args) > 2 {
		m.note(d, "location takes an optional modifier and a path or regex, then a block; left out")
		return
	}
	l := &location{d: d}
	if len(d.Args) == 2 {
		l.mod, l.path = d.Args[0], d.Args[1]
	} else if a := d.Args[0]; strings.HasPrefix(a, "@") {
		// A named location is reached only by internal redirects; its
		// proxy_pass serves the try_files that end with its name.
		if parent == nil {
			m.readNamed(s, d)
		}
		return
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
		re, err := compileRegex(l.path, l.mod == "~*")
		if err != nil {
			m.note(d, "location %s: %v; its redirects are left out", l.mod, err)
			return
		}
		l.re = re
	default:
		m.note(d, "location modifier %q is not one nginx knows; left out", l.mod)
		return
	}
	if parent != nil && parent.re == nil && l.re == nil && !strings.HasPrefix(l.path, parent.path) {
		m.note(d, "location %s is outside location %s, which nginx refuses; left out", l.path, parent.path)
		return
	}
	l.parent, l.proxy = parent, &proxyLevel{parent: s.proxy}
	if parent != nil {
		l.proxy.parent = parent.proxy
	}
	if parent == nil {
		s.top = append(s.top, l)
	} else {
		parent.children = append(parent.children, l)
	}
	s.locs = append(s.locs, l)
	for _, c := range d.Block {
		if c.Name == "location" {
			m.readLocationIn(s, l, c)
			continue
		}
		if m.readContent(c, s, l) {
			continue
		}
		if st := m.readStep(c, l); st != nil {
			l.steps = append(l.steps, st)
		}
	}
}

// readNamed reads a named location (location @app { proxy_pass ...; }):
// only its proxy_pass and proxy_* directives matter, for the locations
// whose try_files fall back to it.
func (m *model) readNamed(s *server, d *Directive) {
	l := &location{d: d, mod: "@", path: d.Args[0], proxy: &proxyLevel{parent: s.proxy}}
	for _, c := range d.Block {
		if c.Name == "proxy_pass" {
			l.pass = c
			continue
		}
		l.proxy.add(c)
	}
	if s.named == nil {
		s.named = map[string]*location{}
	}
	s.named[l.path] = l
}

// tryNamed gives each location whose try_files falls back to a named
// location that proxies (`try_files $uri @app;`) that proxy_pass: nginx
// serves the files it finds itself and passes the rest to @app, and
// redirectd, which serves no files, forwards them all (the try_files
// note says so).
func (m *model) tryNamed(s *server) {
	for _, l := range s.locs {
		if n := s.named[l.tryNamed]; n != nil && l.pass == nil && n.pass != nil {
			l.pass, l.proxy = n.pass, n.proxy
		}
	}
}

// autoRedirects adds the redirect nginx makes for each location whose
// prefix ends with '/' and that passes requests to a backend: a request
// for the prefix without its slash gets 301 to the prefix, its query
// kept (ngx_http_core_find_static_location, auto_redirect; nginx's
// proxy_pass documentation, "If a location is defined by a prefix string
// that ends with the slash character..."), unless a location of that
// level is named so. It comes before regex locations and after the
// server-level rewrites, as an exact location does, so it is modelled as
// one: `location = /p { rewrite ^ /p/ permanent; }`.
func (m *model) autoRedirects(s *server) {
	for _, l := range slices.Clone(s.locs) {
		p := strings.TrimSuffix(l.path, "/")
		if !l.backend || l.re != nil || l.mod == "=" || p == "" || p == l.path || strings.ContainsAny(p, "$ \t\"'{};") {
			continue
		}
		siblings := s.top
		if l.parent != nil {
			siblings = l.parent.children
			if l.parent.path == p {
				continue
			}
		}
		if slices.ContainsFunc(siblings, func(o *location) bool { return o.re == nil && o.path == p }) {
			continue
		}
		rw := &Directive{Name: "rewrite", Args: []string{"^", l.path, "permanent"}, File: l.d.File, Line: l.d.Line}
		m.readLocationIn(s, l.parent, &Directive{Name: "location", Args: []string{"=", p}, Block: []*Directive{rw}, IsBlock: true, File: l.d.File, Line: l.d.Line})
	}
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
		if st := m.readIf(d, l); st != nil {
			return st
		}
		return m.readIfAny(d, l)
	case "set":
		return m.readSet(d, l)
	case "break":
		return &step{d: d, kind: stepStop, loc: l}
	}
	return nil
}

func (m *model) readReturn(d *Directive, l *location, args []string) *step {
	st := &step{d: d, kind: stepStop, loc: l}
	if len(args) == 0 || len(args) > 2 {
		return st
	}
	code, err := strconv.Atoi(args[0])
	target := ""
	switch {
	case err != nil && len(args) == 1:
		code, target = 302, args[0] // return URL: a 302
	case err != nil:
		return st
	case len(args) == 2:
		target = args[1]
	}
	if code == 410 || code == 451 {
		// An answer with no Location, which the self-check compares.
		st.kind, st.status = stepReturn, code
		return st
	}
	if code != 301 && code != 302 && code != 303 && code != 307 && code != 308 {
		return st // an answer that is not a redirect
	}
	p, err := parseTarget(target)
	if err != nil {
		return st
	}
	st.kind, st.status, st.target = stepReturn, code, p
	return st
}

func (m *model) readRewrite(d *Directive, l *location) *step {
	if len(d.Args) < 2 || len(d.Args) > 3 {
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
		st.kind = stepStop
	}
	re, err := compileRegex(d.Args[0], false)
	if err != nil {
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
	if st := m.readIfKnown(d, l); st != nil {
		return st
	}
	if mayAnswer(d.Block) {
		// An if the model does not follow ($host != x, $http_host ~*
		// ..., a set variable) may end the request: the model's answer
		// is unknown from here, never "no redirect".
		re, err := compileRegex("^", false)
		if err == nil {
			return &step{d: d, kind: stepStop, loc: l, re: re}
		}
	}
	return nil
}

// mayAnswer reports whether dirs hold a return or rewrite, at any depth.
func mayAnswer(dirs []*Directive) bool {
	return slices.ContainsFunc(dirs, func(c *Directive) bool {
		return c.Name == "return" || c.Name == "rewrite" || mayAnswer(c.Block)
	})
}

// readIfKnown reads the forms of if the model follows: on $host, and on
// a map variable whose block is one redirect through it.
func (m *model) readIfKnown(d *Directive, l *location) *step {
	cond := ifCondition(d.Args)
	if len(cond) == 3 && cond[0] == "$host" && cond[1] == "=" {
		return m.readIfHost(d, l, cond[2])
	}
	ok := len(cond) == 1 || len(cond) == 3 && cond[1] == "!=" && cond[2] == ""
	var mp *nmap
	if ok && strings.HasPrefix(cond[0], "$") {
		mp = m.maps[strings.Trim(cond[0][1:], "{}")]
	}
	if !ok || mp == nil || len(d.Block) != 1 || d.Block[0].Name != "return" && d.Block[0].Name != "rewrite" {
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
			return nil
		}
	}
	if !hasVar(st.target, mp.name) {
		return nil
	}
	if mp.bad {
		return nil
	}
	st.kind, st.mapv, st.d, st.zeroFalse = stepIfMap, mp, d, len(cond) == 1
	return st
}

// readIfHost reads `if ($host = NAME) { return 30x URL; }`, the form
// certbot writes: a redirect of every path for one host name.
func (m *model) readIfHost(d *Directive, l *location, name string) *step {
	if len(d.Block) != 1 || d.Block[0].Name != "return" || name == "" || strings.ContainsAny(name, "$*~ /") {
		return nil
	}
	inner := d.Block[0]
	st := m.readReturn(inner, l, inner.Args)
	if st.kind != stepReturn {
		return nil
	}
	st.kind, st.d, st.host = stepIfHost, d, strings.TrimSuffix(strings.ToLower(name), ".")
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
		// A map the model does not look up (on $arg_lang, say): the
		// step stays a redirect whose variable the model cannot render,
		// so its answer is unknown, not "no redirect".
		return st
	}
	st.kind, st.mapv, st.always = stepIfMap, mp, true
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

// pickDefault marks the default server of each kind of port and sets
// every server's hosts: the names it is the first to claim on a kind of
// port it listens on.
func (m *model) pickDefault() {
	if len(m.servers) == 0 {
		return
	}
	for _, s := range m.servers {
		m.schemed = m.schemed || s.on[0] != s.on[1] && m.ports[0] != "" && m.ports[1] != ""
	}
	for k := range 2 {
		var def *server
		for _, s := range m.servers {
			if s.on[k] && (def == nil || s.dfltFlag[k] && !def.dfltFlag[k]) {
				def = s
			}
		}
		if def != nil {
			def.dfltOn[k], def.dflt = true, true
		}
	}
	seen := [2]map[string]*server{{}, {}}
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
				var other *server
				claimed := false
				for k := range 2 {
					if !s.on[k] {
						continue
					}
					switch o := seen[k][h]; {
					case o == nil:
						seen[k][h] = s
						claimed = true
					case o == s:
						claimed = true
					default:
						other = o
					}
				}
				if other != nil && !claimed {
					m.note(s.d, "server_name %s is also a name of the server at %s on the same port; nginx uses the first, so this one is left out", h, other.d.Source())
				}
				if claimed && !slices.Contains(s.hosts, h) {
					s.hosts = append(s.hosts, h)
				}
			}
		}
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
