package apache

// A model of what Apache answers, for the import's self-check. It is
// written apart from the translation (it reads the directives again and
// shares none of the translation's code) so that it does not repeat its
// mistakes: per-server mod_rewrite, then mod_alias's Redirects, then the
// deepest .htaccess's mod_rewrite and the Redirects of it and its
// parents, as Apache's translate_name and fixup hooks run them. Where a
// request reaches something the model does not know (an internal
// rewrite, a flag or variable it does not follow, a section such as
// <If>), it gives no answer and the request is not compared.

import (
	"strings"
)

// mAnswer is the model's answer to a probe: a redirect's status and
// absolute Location, 403 or 410, or none (status 0). by is the
// directive that decided it; known is false where the model cannot say.
type mAnswer struct {
	status int
	loc    string
	by     *Directive
	known  bool
}

func (a mAnswer) String() string { return answerString(a.status, a.loc) }

// unknown is the model's "cannot say".
var unknown = mAnswer{}

// probe is a request the self-check asks: its host, target as a client
// sends it, and scheme.
type probe struct {
	host, target string
	https        bool
	// from is the directive the probe was made from.
	from *Directive
}

// mServer is a virtual host (or the main server) as the model reads it.
type mServer struct {
	names  []string
	tls    bool
	engine bool
	rules  []*Directive
	alias  []*Directive
	// aliases indexes alias, once the model reads it.
	aliases *aliasList
	// opaque is a directive of the server's that decides redirects in a
	// way the model does not follow (a <Location>, <If>, ProxyPass):
	// past the rewrite phase, the model cannot say.
	opaque *Directive
	// inherit is a RewriteOptions (its own, or the main server's): the
	// rules it merges are not the model's to follow.
	inherit bool
	errDoc  bool
}

// mDir is a .htaccess (or <Directory>) as the model reads it.
type mDir struct {
	path    string
	dirs    []*Directive
	rewrite bool // holds a mod_rewrite directive
	engine  int  // 1 on, -1 off, 0 unset
	base    string
	opaque  *Directive
	errDoc  bool
}

// apModel is the whole config as the model reads it.
type apModel struct {
	servers []*mServer
	dirs    []*mDir
	// opaque is a directive that makes every answer unknown: a
	// <Directory> holding redirects, AllowEncodedSlashes.
	opaque *Directive
	rules  map[*Directive]*mRule
	// lists are the rule lists read, by their first directive.
	lists map[*Directive][]*mRule
	// dirAliases are the Redirects of each chain of directories.
	dirAliases map[string]*aliasList
	// work counts the regexes matched, which maxModelWork bounds.
	work int
}

// newModel reads conf and the .htaccess files as the model needs them.
func newModel(conf []*Directive, ht []HTAccess) *apModel {
	m := &apModel{rules: map[*Directive]*mRule{}, lists: map[*Directive][]*mRule{}, dirAliases: map[string]*aliasList{}}
	var main []*Directive
	var vhosts []*Directive
	for _, d := range modelFlatten(conf) {
		switch {
		case d.Section && d.Is("VirtualHost"):
			vhosts = append(vhosts, d)
		case d.Section && d.Is("Directory") && modelDeciding(d.Block), d.Is("AllowEncodedSlashes"):
			m.opaque = d
		default:
			main = append(main, d)
		}
	}
	mainSrv := m.server(main, nil)
	if len(vhosts) == 0 {
		m.servers = []*mServer{mainSrv}
	}
	for _, v := range vhosts {
		s := m.server(modelFlatten(v.Block), mainSrv)
		s.tls = modelTLS(v)
		m.servers = append(m.servers, s)
	}
	for _, h := range ht {
		m.dirs = append(m.dirs, m.dir(h))
	}
	return m
}

// server reads one server's directives; a virtual host inherits the
// main server's Redirects (after its own) and RewriteEngine.
func (m *apModel) server(dirs []*Directive, main *mServer) *mServer {
	s := &mServer{}
	engineSet := false
	for _, d := range dirs {
		switch {
		case d.Section:
			if modelDeciding(d.Block) {
				s.opaque = d
			}
		case d.Is("ServerName") && len(d.Args) > 0:
			s.names = append([]string{strings.ToLower(d.Args[0])}, s.names...)
		case d.Is("ServerAlias"):
			for _, a := range d.Args {
				s.names = append(s.names, strings.ToLower(a))
			}
		case d.Is("RewriteEngine") && len(d.Args) == 1:
			s.engine, engineSet = strings.EqualFold(d.Args[0], "on"), true
		case d.Is("RewriteRule") || d.Is("RewriteCond"):
			s.rules = append(s.rules, d)
		case d.Is("RewriteOptions"):
			s.inherit = true
		case d.Is("RewriteBase"), strings.HasPrefix(strings.ToLower(d.Name), "proxypass"):
			s.opaque = d
		case modelAlias(d):
			s.alias = append(s.alias, d)
		case d.Is("ErrorDocument"):
			s.errDoc = true
		}
	}
	if main != nil {
		if !engineSet {
			s.engine = main.engine
		}
		s.alias = append(s.alias, main.alias...)
		s.errDoc = s.errDoc || main.errDoc
		s.inherit = s.inherit || main.inherit
		if s.opaque == nil {
			s.opaque = main.opaque
		}
	}
	return s
}

// dir reads a .htaccess.
func (m *apModel) dir(h HTAccess) *mDir {
	p := "/" + strings.Trim(h.Dir, "/")
	md := &mDir{path: p}
	for _, d := range modelFlatten(h.Dirs) {
		name := strings.ToLower(d.Name)
		switch {
		case d.Section:
			if modelDeciding(d.Block) {
				md.opaque = d
			}
		case strings.HasPrefix(name, "rewrite"):
			md.rewrite = true
			switch name {
			case "rewriteengine":
				md.engine = -1
				if len(d.Args) == 1 && strings.EqualFold(d.Args[0], "on") {
					md.engine = 1
				}
			case "rewritebase":
				if len(d.Args) == 1 {
					md.base = d.Args[0]
				}
			case "rewriteoptions", "rewritemap":
				md.opaque = d
			}
			md.dirs = append(md.dirs, d)
		case modelAlias(d):
			md.dirs = append(md.dirs, d)
		case strings.HasPrefix(name, "proxypass"):
			md.opaque = d
		case d.Is("ErrorDocument"):
			md.errDoc = true
		}
	}
	return md
}

// modelFlatten opens <IfModule>, <IfDefine> and <IfVersion> as Apache
// does where the module is loaded (<IfModule !m> as false); other
// sections stay whole.
func modelFlatten(dirs []*Directive) []*Directive {
	var out []*Directive
	for _, d := range dirs {
		if d.Section && (d.Is("IfModule") || d.Is("IfDefine") || d.Is("IfVersion")) {
			if d.Is("IfModule") && len(d.Args) > 0 && strings.HasPrefix(d.Args[0], "!") {
				continue
			}
			out = append(out, modelFlatten(d.Block)...)
			continue
		}
		out = append(out, d)
	}
	return out
}

// modelDeciding reports whether a section holds anything that decides a
// redirect.
func modelDeciding(dirs []*Directive) bool {
	for _, d := range dirs {
		name := strings.ToLower(d.Name)
		if d.Section && modelDeciding(d.Block) || strings.HasPrefix(name, "rewrite") || strings.HasPrefix(name, "redirect") ||
			strings.HasPrefix(name, "proxypass") || name == "errordocument" {
			return true
		}
	}
	return false
}

func modelAlias(d *Directive) bool {
	switch strings.ToLower(d.Name) {
	case "redirect", "redirectmatch", "redirectpermanent", "redirecttemp":
		return true
	}
	return false
}

// modelTLS: a virtual host of port 443, or with SSLEngine on.
func modelTLS(v *Directive) bool {
	for _, a := range v.Args {
		if strings.HasSuffix(a, ":443") {
			return true
		}
	}
	for _, d := range modelFlatten(v.Block) {
		if d.Is("SSLEngine") && len(d.Args) == 1 && strings.EqualFold(d.Args[0], "on") {
			return true
		}
	}
	return false
}

// answer is Apache's answer to p, as far as the model knows it.
func (m *apModel) answer(p probe) mAnswer {
	if m.opaque != nil {
		return unknown
	}
	rawPath, query, hasQuery := strings.Cut(p.target, "?")
	uri, ok := apacheURI(rawPath)
	if !ok {
		return unknown
	}
	if uri == "" {
		// %2F: Apache answers 404 (AllowEncodedSlashes Off).
		return mAnswer{known: true}
	}
	s := m.chooseServer(p.host, p.https)
	if s == nil {
		return unknown
	}
	r := &mReq{host: p.host, https: p.https, uri: uri, rawPath: rawPath, args: query, hasArgs: hasQuery}
	r.origArgs, r.origHas = r.args, r.hasArgs
	if s.inherit {
		return unknown
	}
	if s.engine {
		a, done := m.runRules(s.rules, r, nil)
		if done {
			return a
		}
	}
	if s.opaque != nil {
		return unknown
	}
	if s.aliases == nil {
		s.aliases = newAliasList(s.alias)
	}
	if a, ok := s.aliases.answer(m, r); ok {
		return a
	}
	a := m.perDir(r)
	if a.known && a.status == 0 && (s.errDoc || m.anyErrDoc()) {
		return unknown
	}
	return a
}

func (m *apModel) anyErrDoc() bool {
	for _, d := range m.dirs {
		if d.errDoc {
			return true
		}
	}
	return false
}

// chooseServer is the virtual host of the host name and scheme: the
// first of the scheme's that names it, else the scheme's first.
func (m *apModel) chooseServer(host string, https bool) *mServer {
	if len(m.servers) == 1 && m.servers[0].names == nil {
		return m.servers[0]
	}
	var first *mServer
	for _, s := range m.servers {
		if s.tls != https {
			continue
		}
		if first == nil {
			first = s
		}
		for _, n := range s.names {
			if n == host {
				return s
			}
			if strings.ContainsAny(n, "*?") {
				// Wildcards: the model does not choose by them.
				return nil
			}
		}
	}
	return first
}

// perDir runs the deepest .htaccess's rules, then the Redirects of it
// and its parents, nearest first.
func (m *apModel) perDir(r *mReq) mAnswer {
	var chain []*mDir // deepest first
	for _, d := range m.dirs {
		if d.path == "/" || strings.HasPrefix(r.uri, d.path+"/") {
			chain = append(chain, d)
		} else if r.uri == d.path {
			// The directory itself without its slash: Apache's per-dir
			// prefix does not match it, and mod_dir answers.
			return unknown
		}
	}
	sortDeepest(chain)
	for _, d := range chain {
		if d.opaque != nil {
			return unknown
		}
	}
	if a, done := m.dirRules(chain, r); done {
		return a
	}
	var key strings.Builder
	for _, d := range chain {
		key.WriteString(d.path + "\n")
	}
	l := m.dirAliases[key.String()]
	if l == nil {
		var all []*Directive
		for _, d := range chain {
			all = append(all, d.dirs...)
		}
		l = newAliasList(all)
		m.dirAliases[key.String()] = l
	}
	if a, ok := l.answer(m, r); ok {
		return a
	}
	return mAnswer{known: true}
}

// dirRules runs the rules of the deepest directory that has mod_rewrite
// directives, matched from that directory, RewriteEngine from the
// nearest that sets it.
func (m *apModel) dirRules(chain []*mDir, r *mReq) (mAnswer, bool) {
	for i, d := range chain {
		if !d.rewrite {
			continue
		}
		on := false
		for _, e := range chain[i:] {
			if e.engine != 0 {
				on = e.engine == 1
				break
			}
		}
		if !on {
			return mAnswer{}, false
		}
		var rules []*Directive
		for _, x := range d.dirs {
			if x.Is("RewriteRule") || x.Is("RewriteCond") {
				rules = append(rules, x)
			}
		}
		if len(rules) == 0 {
			// RewriteEngine alone: whether it replaces the parent's
			// rules is not the model's to say.
			return unknown, true
		}
		return m.runRules(rules, r, d)
	}
	return mAnswer{}, false
}

func sortDeepest(ds []*mDir) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && len(ds[j].path) > len(ds[j-1].path); j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}
