package apache

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/redirectd/redirectd/config/importer"
)

// Note is one line of the import's report.
type Note = importer.Note

// HTAccess is a .htaccess file and the URL path of the directory it
// applies to ("/" for the DocumentRoot).
type HTAccess struct {
	Dir  string
	File string
	Dirs []*Directive
}

// Result is what Translate makes of a config.
type Result struct {
	Servers []*Server
	Notes   []Note
	// Forms counts the directives translated, by name.
	Forms map[string]int
	// Maps are the RewriteMaps the rules read, as location maps.
	Maps []*LocMap
	// Fallbacks are the ErrorDocuments that redirect, as fallback rules.
	Fallbacks []*Fallback
	// Groups are the backends ProxyPass forwards to.
	Groups []*Group
	// Forwards are the locations that forward [P] rules of other
	// forms than ProxyPass's.
	Forwards []*Forward
	// model is the input read again by the model of Apache, for
	// SelfCheck.
	model *apModel
}

// Fallback is `ErrorDocument CODE URL`: where the site answers CODE,
// Apache redirects (302) to URL.
type Fallback struct {
	Source string
	Hosts  []string
	Code   int
	To     string
}

// Server is one virtual host (or the main server, without hosts): its
// server-context steps and a location per directory with rules.
type Server struct {
	Source    string
	Hosts     []string
	Default   bool
	Steps     []string
	Locations []*Location
	Proxies   []*Proxy
}

// Location is a directory's per-directory rules, as a prefix location.
type Location struct {
	Source string
	Path   string
	Steps  []string
}

// LeftOut reports whether a note says a directive was left out: the
// import exits 1 then.
func (r *Result) LeftOut() bool {
	for _, n := range r.Notes {
		if n.Kind == importer.LeftOut {
			return true
		}
	}
	return false
}

type translator struct {
	res *Result
	// endRound is set where a .htaccess rule with [END] rewrites
	// internally; rwSpans are the locations' mod_rewrite steps, which
	// are then skipped once one has (endRounds).
	endRound bool
	rwSpans  []rwSpan
	// ifHandled are the <If> sections whose RewriteRules ifRewrite
	// writes.
	ifHandled map[*Directive]bool
	// fixup is mod_alias's steps of the .htaccess being written: they
	// run, on the request's own path, where its rules end in an
	// internal rewrite.
	fixup   []string
	docRoot string // the main server's DocumentRoot, "" if none
	maps    map[string]*rwMap
	counted map[*Directive]bool
	// preserve is the server being written's ProxyPreserveHost.
	preserve bool
	// encodedSlash404 is AllowEncodedSlashes Off, Apache's default:
	// a path holding %2F is answered 404 before any module reads it.
	encodedSlash404 bool
	// ifChains counts the <If>/<ElseIf>/<Else> chains written, for
	// their variables.
	ifChains int
	// handled are the sections the import translates, which
	// scanOther does not report; locExpr and locList the main server's
	// <Location> sections' steps (locationSteps): every server's steps
	// hold locExpr before its Redirects, every directory's location
	// both, and without any location, the servers' steps end with
	// locList.
	handled     map[*Directive]bool
	forwarded   map[*Group]bool
	locExpr     []string
	locList     []string
	locInServer bool
}

// encodedSlashStep answers 404 to a path holding %2F, as Apache does
// under AllowEncodedSlashes Off, where nginx's $uri would decode it.
const (
	encodedSlashComment = "# Apache answers 404 to a path holding %2F (AllowEncodedSlashes Off)"
	encodedSlashStep    = `if ($request_uri ~* "^[^?]*%2f") { return 404; }`
)

func (t *translator) note(d *Directive, kind, format string, args ...any) {
	n := Note{Kind: kind, Msg: fmt.Sprintf(format, args...)}
	if d != nil {
		n.File, n.Line = d.File, d.Line
	}
	t.res.Notes = append(t.res.Notes, n)
}

// count counts a directive translated, once however many locations
// write it (a parent's Redirects stand in each sub-directory's).
func (t *translator) count(d *Directive) {
	if !t.counted[d] {
		t.counted[d] = true
		t.res.Forms[d.Name]++
	}
}

// Translate writes the server config's virtual hosts (or its main
// server, where it has none) and the .htaccess files as servers of
// steps. Each .htaccess is a location of every server: a directory's
// file applies whichever host maps to it.
func Translate(conf []*Directive, ht []HTAccess) *Result {
	t := &translator{res: &Result{Forms: map[string]int{}}, maps: map[string]*rwMap{}, counted: map[*Directive]bool{}, handled: map[*Directive]bool{}, ifHandled: map[*Directive]bool{}, forwarded: map[*Group]bool{}}
	// The model reads the input as given, before the translation
	// merges and flattens it.
	t.res.model = newModel(conf, slices.Clone(ht))
	t.readMaps(conf)
	var vhosts []*Directive
	var main []*Directive
	for _, d := range flatten(conf) {
		if d.Section && d.Is("VirtualHost") {
			vhosts = append(vhosts, d)
			continue
		}
		main = append(main, d)
	}
	t.noteCanonicalNames(conf)
	t.encodedSlash404 = true
	for _, d := range main {
		if d.Is("DocumentRoot") && len(d.Args) == 1 {
			t.docRoot = d.Args[0]
		}
		if d.Is("AllowEncodedSlashes") && len(d.Args) == 1 && !strings.EqualFold(d.Args[0], "off") {
			t.encodedSlash404 = false
			t.note(d, importer.Caveat, "AllowEncodedSlashes %s: redirectd decodes %%2F in the path as nginx does (a '/')", d.Args[0])
		}
	}
	for i := range ht {
		ht[i].Dirs = flatten(ht[i].Dirs)
		ht[i].Dir = dirPath(ht[i].Dir)
	}
	main, ht = t.directories(main, ht)
	for _, v := range vhosts {
		v.Block, ht = t.directories(v.Block, ht)
	}
	// A directory's own rules would be replaced by a section's under
	// it (mod_rewrite's merge): sections' rules are written only where
	// no directory has any.
	perDirRules := slices.ContainsFunc(ht, func(h HTAccess) bool { return hasRewrite(h.Dirs) })
	t.locExpr, t.locList = t.locationSteps(main, !perDirRules)
	// The file walk's sections merge after the directory's, before the
	// location walk's: their Redirects come after the <Location>s'.
	t.locList = append(t.locList, t.filesSteps(main)...)
	mainRedirects := t.scanOther(main, true)
	// A .htaccess's [P] rules forward with the main server's setting.
	t.preserve = proxyPreserve(main, false)
	mainErrors := errorDocs(main)
	var locs []*Location
	htDirs := map[string]bool{}
	for _, h := range ht {
		htDirs[h.Dir] = true
		if l := t.htaccess(h, ancestors(h, ht)); l != nil {
			locs = append(locs, l)
		}
	}
	t.endRounds()
	if len(t.locExpr)+len(t.locList) > 0 && len(locs) > 0 && !htDirs["/"] {
		// A path under no directory's location still goes through
		// the sections: a location of "/" holds them.
		l := &Location{Source: "the <Location> sections", Path: "/"}
		if t.encodedSlash404 {
			l.Steps = append(l.Steps, encodedSlashComment, encodedSlashStep)
		}
		locs = append(locs, l)
		l.Steps = append(append(l.Steps, t.locExpr...), t.locList...)
	}
	t.locInServer = len(locs) == 0
	defer t.declareMapKeys()
	defer t.guardForwards()
	defer t.dedupeProxies(htDirs)
	if len(vhosts) == 0 {
		s := &Server{Source: "main server"}
		t.preserve = proxyPreserve(main, false)
		t.serverSteps(s, main, nil, t.proxies(s, proxyPasses(main), nil, t.preserve, htDirs))
		s.Locations = locs
		t.res.Servers = append(t.res.Servers, s)
		t.fallbacks(s, mainErrors, nil, len(locs) > 0)
		return t.res
	}
	t.virtualHosts(vhosts, main, mainRedirects, mainErrors, locs, htDirs)
	return t.res
}

// directories takes the <Directory> sections of dirs under the main
// server's DocumentRoot out of them, as the per-directory configs they
// are: the same as a .htaccess of that directory, which Apache reads
// after them (its RewriteRules, where it has any, replace the
// section's; its Redirects come first).
func (t *translator) directories(dirs []*Directive, ht []HTAccess) ([]*Directive, []HTAccess) {
	var kept []*Directive
	for _, d := range dirs {
		dir, ok := t.urlDir(d)
		if !ok || !hasDeciding(d.Block) {
			kept = append(kept, d)
			continue
		}
		i := slices.IndexFunc(ht, func(h HTAccess) bool { return h.Dir == dir })
		if i < 0 {
			ht = append(ht, HTAccess{Dir: dir, File: d.Source(), Dirs: d.Block})
			continue
		}
		merged := append([]*Directive{}, ht[i].Dirs...)
		if !hasRewrite(ht[i].Dirs) {
			merged = append(merged, rewriteOnly(d.Block)...)
		}
		for _, x := range d.Block {
			if !x.Section && !strings.HasPrefix(strings.ToLower(x.Name), "rewrite") {
				merged = append(merged, x)
			}
		}
		ht[i].Dirs = merged
	}
	return kept, ht
}

func rewriteOnly(dirs []*Directive) []*Directive {
	var out []*Directive
	for _, d := range dirs {
		if !d.Section && strings.HasPrefix(strings.ToLower(d.Name), "rewrite") {
			out = append(out, d)
		}
	}
	return out
}

// urlDir returns the URL path of a <Directory> section's folder under
// the DocumentRoot.
func (t *translator) urlDir(d *Directive) (string, bool) {
	if !d.Section || !d.Is("Directory") || len(d.Args) != 1 || t.docRoot == "" || strings.ContainsAny(d.Args[0], "*?[~") {
		return "", false
	}
	root := strings.TrimSuffix(path.Clean(t.docRoot), "/")
	p := path.Clean(d.Args[0])
	if p != root && !strings.HasPrefix(p, root+"/") {
		return "", false
	}
	return dirPath(strings.TrimPrefix(p, root)), true
}

// vhostTLS reports whether a virtual host serves TLS: port 443, or
// SSLEngine on.
func vhostTLS(v *Directive) bool {
	for _, a := range v.Args {
		if i := strings.LastIndexByte(a, ':'); i >= 0 && a[i+1:] == "443" {
			return true
		}
	}
	if d := lastDirective(v.Block, "SSLEngine"); d != nil && len(d.Args) == 1 {
		return strings.EqualFold(d.Args[0], "on")
	}
	return false
}

// vhostNames reads a virtual host's ServerName and ServerAlias names.
func (t *translator) vhostNames(v *Directive) []string {
	var hosts []string
	for _, d := range v.Block {
		if (!d.Is("ServerName") && !d.Is("ServerAlias")) || d.Section {
			continue
		}
		for _, a := range d.Args {
			if d.Is("ServerName") {
				a, _, _ = strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "http://"), "https://"), ":")
			}
			if !validHost(a) {
				t.note(d, importer.Caveat, "%s %q is not a host name redirectd takes; not written", d.Name, a)
				continue
			}
			if !slices.Contains(hosts, hostName(a)) {
				hosts = append(hosts, hostName(a))
			}
		}
	}
	return hosts
}

// validHost reports whether a is a host name or an Apache wildcard of
// one, in ASCII.
func validHost(a string) bool {
	if a == "" || strings.HasPrefix(a, ".") || strings.HasSuffix(a, ".") || strings.Contains(a, "..") {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i] | 0x20
		if !(c >= 'a' && c <= 'z' || a[i] >= '0' && a[i] <= '9' || strings.IndexByte("-.*?_", a[i]) >= 0) {
			return false
		}
	}
	return true
}

// virtualHosts writes each virtual host as a server: its names, its
// steps (under its scheme where the config has plain and TLS ones), the
// directories' locations, its forwards and fallbacks.
func (t *translator) virtualHosts(vhosts, main, mainRedirects []*Directive, mainErrors map[string]*Directive, locs []*Location, htDirs map[string]bool) {
	tls := make([]bool, len(vhosts))
	kinds := map[bool]bool{}
	for i, v := range vhosts {
		tls[i] = vhostTLS(v)
		kinds[tls[i]] = true
	}
	defaults := map[bool]bool{}
	for i, v := range vhosts {
		// Apache answers a host no virtual host names with the first
		// one of the port the request came to.
		s := &Server{Source: v.Source(), Default: !defaults[tls[i]]}
		defaults[tls[i]] = true
		// The host's own <Location> sections, where the servers' steps
		// hold them (no directory's location): Apache merges them after
		// the main server's, so they are tried first.
		mainExpr, mainList := t.locExpr, t.locList
		if t.locInServer {
			e, l := t.locationSteps(v.Block, false)
			t.locExpr, t.locList = append(e, mainExpr...), append(l, mainList...)
		}
		t.scanOther(v.Block, false)
		s.Hosts = t.vhostNames(v)
		if len(s.Hosts) == 0 && len(vhosts) > 1 {
			t.note(v, importer.Caveat, "a virtual host without ServerName: its steps are written for every host")
		}
		t.preserve = proxyPreserve(v.Block, proxyPreserve(main, false))
		t.serverSteps(s, vhostDirs(v.Block, main), mainRedirects, t.proxies(s, proxyPasses(v.Block), proxyPasses(main), t.preserve, htDirs))
		t.locExpr, t.locList = mainExpr, mainList
		if len(kinds) == 2 {
			// Plain and TLS virtual hosts: each answers its own
			// scheme's requests, as Apache picks by port first.
			if len(s.Steps) > 0 {
				scheme := map[bool]string{false: "http", true: "https"}[tls[i]]
				s.Steps = append(append([]string{"if ($scheme = " + scheme + ") {"}, indent(s.Steps)...), "}")
			}
			if len(s.Proxies) > 0 {
				t.note(v, importer.Caveat, "its ProxyPass locations answer on both plain and TLS ports")
			}
		}
		s.Locations = locs
		t.fallbacks(s, errorDocs(v.Block), mainErrors, len(locs) > 0)
		t.res.Servers = append(t.res.Servers, s)
	}
}

// dedupeProxies keeps one forwarding location per host list and path,
// the first (Apache's first ProxyPass or [P] of a path answers), and
// none where a .htaccess location has the path: a location of one path
// either forwards or runs that directory's steps.
func (t *translator) dedupeProxies(htDirs map[string]bool) {
	seen := map[string]bool{}
	for _, s := range t.res.Servers {
		hosts := strings.Join(s.Hosts, " ")
		kept := s.Proxies[:0]
		for _, p := range s.Proxies {
			switch {
			case htDirs[p.Path]:
				t.res.Notes = append(t.res.Notes, Note{File: sourceFile(p.Source), Line: sourceLine(p.Source), Kind: importer.LeftOut,
					Msg: fmt.Sprintf("a forward of %s: a .htaccess is given for the same directory, and a location of one path forwards or runs steps, not both; left out", p.Path)})
			case seen[hosts+"\x00"+p.Path]:
			default:
				seen[hosts+"\x00"+p.Path] = true
				kept = append(kept, p)
			}
		}
		s.Proxies = kept
	}
}

// sourceFile and sourceLine split a "file:line".
func sourceFile(src string) string {
	if i := strings.LastIndexByte(src, ':'); i >= 0 {
		return src[:i]
	}
	return src
}

func sourceLine(src string) int {
	n, _ := strconv.Atoi(src[strings.LastIndexByte(src, ':')+1:])
	return n
}

// declareMapKeys sets each map's key variable, empty, first in every
// server's and location's steps: the loader compiles a map for each
// server, and its source must be a variable the server defines.
func (t *translator) declareMapKeys() {
	if len(t.res.Maps) == 0 {
		return
	}
	var decl []string
	for _, m := range t.res.Maps {
		decl = append(decl, "set $"+m.Key+` "";`)
	}
	for _, s := range t.res.Servers {
		s.Steps = append(append([]string{}, decl...), s.Steps...)
	}
	if len(t.res.Servers) > 0 {
		for _, l := range t.res.Servers[0].Locations {
			l.Steps = append(append([]string{}, decl...), l.Steps...)
		}
	}
}

// hostName writes an Apache ServerAlias name as a [[server_rewrite]]
// host: exact and *.domain names as they are, other wildcards (fnmatch's
// * and ?) as a regex.
func hostName(a string) string {
	a = strings.ToLower(a)
	if !strings.ContainsAny(a, "*?") || strings.HasPrefix(a, "*.") && !strings.ContainsAny(a[2:], "*?") {
		return a
	}
	var b strings.Builder
	b.WriteString("~^")
	for _, c := range a {
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(quoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

// serverSteps writes a server's steps: Apache's translate_name hooks run
// mod_rewrite's server-context rules first, then mod_alias's Redirects
// (the host's own, then the main server's, which a virtual host
// inherits).
func (t *translator) serverSteps(s *Server, dirs []*Directive, inherited []*Directive, proxy []string) {
	rw := t.rewriteSteps(dirs, "")
	s.Proxies = append(rw.proxies, s.Proxies...)
	var redirects []*Directive
	for _, d := range dirs {
		if !d.Section && isRedirect(d) {
			redirects = append(redirects, d)
		}
	}
	redirects = append(redirects, inherited...)
	al := append(append(append(proxy, t.ifSteps(dirs)...), t.locExpr...), t.aliasSteps(redirects)...)
	if t.locInServer {
		// mod_alias's fixup, after its translate_name hook.
		al = append(al, t.locList...)
	}
	if len(rw.steps)+len(al) == 0 {
		return
	}
	// Apache answers 404 to an encoded slash (AllowEncodedSlashes Off)
	// before any module reads the path; nginx's $uri would decode it.
	if t.encodedSlash404 {
		s.Steps = append(s.Steps, encodedSlashComment, encodedSlashStep)
	}
	s.Steps = append(s.Steps, rw.steps...)
	if len(al) > 0 && rw.internal {
		// An internal rewrite in server context makes mod_rewrite's
		// hook answer the URI, and mod_alias's is not run.
		s.Steps = append(s.Steps, "if ($a_rewritten = 0) {")
		s.Steps = append(s.Steps, indent(al)...)
		s.Steps = append(s.Steps, "}")
		return
	}
	s.Steps = append(s.Steps, al...)
}

// htaccess writes a .htaccess file as a prefix location of its
// directory: its RewriteRules run first (mod_rewrite's fixup hook), then
// its Redirects (mod_alias's).
//
// Apache merges a directory's configs with its parents': the nearest
// RewriteEngine holds, the rules are the directory's own (with
// RewriteOptions Inherit and the like, merged with its parent's:
// dirRules), and the Redirects are its own, then its parents', nearest
// first.
func (t *translator) htaccess(h HTAccess, parents []HTAccess) *Location {
	dir := h.Dir
	// Its <Files> sections' Redirects, and its parents' (which apply
	// below them), the nearest's first; read before scanOther notes
	// the sections left out.
	var files []string
	for _, hh := range append([]HTAccess{h}, parents...) {
		files = append(files, t.filesSteps(hh.Dirs)...)
	}
	t.scanOther(h.Dirs, false)
	dirs, rwDir := h.Dirs, dir
	var opts rwOptions
	if !hasRewrite(dirs) {
		// A .htaccess without mod_rewrite's directives leaves its
		// parent's rules in force, matched from the parent's
		// directory (as a real Apache answers).
		for i, p := range parents {
			if hasRewrite(p.Dirs) {
				var rules []*Directive
				rules, opts = dirRules(p, parents[i+1:])
				dirs, rwDir = withRules(p.Dirs, rules), p.Dir
				break
			}
		}
	} else {
		var rules []*Directive
		rules, opts = dirRules(h, parents)
		dirs = withRules(dirs, rules)
	}
	if hasRewrite(h.Dirs) && !hasDirective(dirs, "RewriteEngine") {
		for _, p := range parents {
			if e := lastDirective(p.Dirs, "RewriteEngine"); e != nil {
				dirs = append([]*Directive{e}, dirs...)
				break
			}
		}
	}
	engine := lastDirective(dirs, "RewriteEngine")
	ifrw, guard := t.ifRewrite(h.Dirs, engine, rulesOf(dirs), opts)
	var redirects []*Directive
	for _, hh := range append([]HTAccess{h}, parents...) {
		for _, d := range hh.Dirs {
			if !d.Section && isRedirect(d) {
				redirects = append(redirects, d)
			}
		}
	}
	al := append(append(append(append(t.ifSteps(h.Dirs), t.locExpr...), t.locList...), files...), t.aliasSteps(redirects)...)
	// mod_rewrite's fixup hook returns OK after an internal rewrite
	// (the internal redirect comes after, from its handler), and
	// mod_alias's fixup runs next on the request's own path: a
	// Redirect of it wins over the rewrite.
	t.fixup = al
	rw := t.rewriteSteps(dirs, rwDir)
	t.fixup = nil
	l := &Location{Source: h.File, Path: dir}
	if len(rw.steps)+len(al)+len(ifrw) > 0 {
		if t.encodedSlash404 {
			l.Steps = append(l.Steps, encodedSlashComment, encodedSlashStep)
		}
	}
	rwFrom := len(l.Steps)
	if guard != "" {
		l.Steps = append(l.Steps, ifrw...)
		l.Steps = append(append(l.Steps, "if ($"+guard+" = 0) {"), indent(rw.steps)...)
		l.Steps = append(l.Steps, "}")
	} else {
		l.Steps = append(l.Steps, rw.steps...)
	}
	if len(l.Steps) > rwFrom {
		t.rwSpans = append(t.rwSpans, rwSpan{l, rwFrom, len(l.Steps)})
	}
	l.Steps = append(l.Steps, al...)
	return l
}

// dirPath writes a directory's URL path as its prefix location: with a
// leading and a trailing slash.
func dirPath(dir string) string {
	dir = path.Clean("/" + dir)
	if dir != "/" {
		dir += "/"
	}
	return dir
}

// ancestors returns the .htaccess files of the directories above h's,
// nearest first.
func ancestors(h HTAccess, all []HTAccess) []HTAccess {
	var out []HTAccess
	for _, a := range all {
		if a.Dir != h.Dir && strings.HasPrefix(h.Dir, a.Dir) {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i].Dir) > len(out[j].Dir) })
	return out
}

// hasRewrite reports whether dirs hold any of mod_rewrite's directives.
func hasRewrite(dirs []*Directive) bool {
	for _, d := range dirs {
		if !d.Section && strings.HasPrefix(strings.ToLower(d.Name), "rewrite") {
			return true
		}
	}
	return false
}

func hasDirective(dirs []*Directive, name string) bool { return lastDirective(dirs, name) != nil }

func lastDirective(dirs []*Directive, name string) *Directive {
	var last *Directive
	for _, d := range dirs {
		if !d.Section && d.Is(name) {
			last = d
		}
	}
	return last
}

// directivesNamed returns the directives of dirs (not sections) of any
// of the names, in their order.
func directivesNamed(dirs []*Directive, names ...string) []*Directive {
	var out []*Directive
	for _, d := range dirs {
		if !d.Section && slices.ContainsFunc(names, d.Is) {
			out = append(out, d)
		}
	}
	return out
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "    " + l
	}
	return out
}

// decides lists the directives, other than mod_alias's and
// mod_rewrite's (which their own code reads), that decide a redirect or
// a forward: each is reported where it stands.
var decides = map[string]string{
	"rewritemap":       "",
	"fallbackresource": "FallbackResource serves a file: the site's own content",
	"alias":            "",
	"aliasmatch":       "",
	"scriptalias":      "",
}

// scanOther notes the directives of dirs that decide a redirect or a
// forward and that nothing translates, and the sections the import does
// not read; it returns the Redirects of dirs when main is true (a virtual
// host inherits them).
func (t *translator) scanOther(dirs []*Directive, main bool) []*Directive {
	var redirects []*Directive
	for _, d := range dirs {
		if d.Section {
			if !d.Is("VirtualHost") && !d.Is("If") && !d.Is("ElseIf") && !d.Is("Else") && !t.handled[d] && hasDeciding(d.Block) {
				t.note(d, importer.LeftOut, "<%s %s> holds redirects or rewrites; left out: only server context and .htaccess files are translated", d.Name, strings.Join(d.Args, " "))
			}
			continue
		}
		if main && isRedirect(d) {
			redirects = append(redirects, d)
		}
		why, ok := decides[strings.ToLower(d.Name)]
		if ok && why != "" {
			t.note(d, importer.LeftOut, "%s; left out", why)
		}
	}
	return redirects
}

func hasDeciding(dirs []*Directive) bool {
	for _, d := range dirs {
		n := strings.ToLower(d.Name)
		if _, ok := decides[n]; ok || isRedirect(d) || strings.HasPrefix(n, "rewrite") || d.Section && hasDeciding(d.Block) {
			return true
		}
	}
	return false
}

// errorDocs returns the ErrorDocument directives of dirs, by status.
func errorDocs(dirs []*Directive) map[string]*Directive {
	out := map[string]*Directive{}
	for _, d := range dirs {
		if !d.Section && d.Is("ErrorDocument") && len(d.Args) == 2 {
			out[d.Args[0]] = d
		}
	}
	return out
}

// fallbacks writes a server's ErrorDocuments (its own, then the main
// server's for the other statuses): one whose target is a URL is
// Apache's 302 to it, written as a fallback rule; one of a local page
// or a text is the site's own answer. A fallback rule runs before the
// locations, so with .htaccess files it would answer first: left out.
func (t *translator) fallbacks(s *Server, own, inherited map[string]*Directive, locs bool) {
	all := map[string]*Directive{}
	for k, d := range inherited {
		all[k] = d
	}
	for k, d := range own {
		all[k] = d
	}
	codes := make([]string, 0, len(all))
	for k := range all {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	for _, k := range codes {
		d := all[k]
		to := d.Args[1]
		code, err := strconv.Atoi(k)
		switch {
		case err != nil || code < 400 || code > 599:
			t.note(d, importer.LeftOut, "ErrorDocument %s: not a status from 400 to 599; left out", k)
		case !strings.HasPrefix(to, "http://") && !strings.HasPrefix(to, "https://"):
			t.note(d, importer.Served, "ErrorDocument %s %s: a page or a text of the site's own", k, to)
		case strings.ContainsAny(to, "$ ") || !utf8.ValidString(to) || hasControl(to):
			t.note(d, importer.LeftOut, "ErrorDocument %s: the URL cannot be written as a rule's target; left out", k)
		case locs:
			t.note(d, importer.LeftOut, "ErrorDocument %s %s: a fallback rule would answer before the .htaccess rules run; left out", k, to)
		default:
			t.count(d)
			var hosts []string
			for _, h := range s.Hosts {
				if !strings.HasPrefix(h, "~") {
					hosts = append(hosts, h)
				} else {
					t.note(d, importer.Caveat, "ErrorDocument %s: a rule's host takes no wildcard but *.domain; not written for %s", k, h)
				}
			}
			if len(s.Hosts) > 0 && len(hosts) == 0 {
				continue
			}
			t.res.Fallbacks = append(t.res.Fallbacks, &Fallback{Source: d.Source(), Hosts: hosts, Code: code, To: to})
			if s.Default && len(s.Hosts) > 0 {
				t.note(d, importer.Caveat, "ErrorDocument %s: written for the first virtual host's names; the hosts no virtual host names, which Apache answers with it, are not redirected", k)
			}
		}
	}
}

// flatten reads <IfModule>, <IfDefine> and <IfVersion> as if their
// condition held: a config for Apache holds the modules it uses; and
// <IfModule !mod> as not holding (a site's fallback for a server
// without mod_rewrite, such as ErrorDocument 404 /index.php).
func flatten(dirs []*Directive) []*Directive {
	var out []*Directive
	for _, d := range dirs {
		if d.Section && d.Is("IfModule") && len(d.Args) == 1 && strings.HasPrefix(d.Args[0], "!") {
			continue // the modules redirects need are loaded
		}
		if d.Section && (d.Is("IfModule") || d.Is("IfDefine") || d.Is("IfVersion")) {
			out = append(out, flatten(d.Block)...)
			continue
		}
		if d.Section {
			d.Block = flatten(d.Block)
		}
		out = append(out, d)
	}
	return out
}

// guardForwards puts first in every server's steps the 404 that keeps
// clients out of the [P] rules' forwarding locations.
func (t *translator) guardForwards() {
	if len(t.res.Forwards) == 0 {
		return
	}
	for _, s := range t.res.Servers {
		s.Steps = append([]string{"# the locations of the [P] rules are the import's own", forwardGuard}, s.Steps...)
	}
}
