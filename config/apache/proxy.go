package apache

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// Group is an upstream group a ProxyPass forwards to: one backend, and
// the Host it is sent (ProxyPreserveHost).
type Group struct {
	Name     string
	Server   string // scheme://host:port
	Preserve bool
}

// Proxy is a ProxyPass of a server: its path as a prefix location that
// forwards to Group, the matched prefix replaced by URI.
type Proxy struct {
	Source string
	Path   string
	Group  *Group
	URI    string
	// Regex is a ProxyPassMatch: Path is its regex, a regex location
	// whose Steps rewrite the path to the backend's.
	Regex bool
	Steps []string
}

// proxies reads a server's ProxyPass directives (its own, then the main
// server's, which a virtual host inherits) into forwarding locations,
// and returns the steps that let them answer: mod_proxy's translate_name
// hook runs after mod_rewrite's and before mod_alias's, so a path it
// takes ends the server's steps before the Redirects.
func (t *translator) proxies(s *Server, own, inherited []*Directive, preserve bool, htDirs map[string]bool) []string {
	var steps []string
	for _, d := range append(append([]*Directive{}, own...), inherited...) {
		if len(d.Args) < 2 {
			t.note(d, importer.LeftOut, "ProxyPass takes a path and a URL; left out")
			continue
		}
		p, target := d.Args[0], d.Args[1]
		if d.Is("ProxyPassMatch") {
			steps = append(steps, t.proxyMatch(s, d, preserve)...)
			continue
		}
		if target == "!" {
			t.note(d, importer.Served, "ProxyPass %s !: the path is the site's own", p)
			continue
		}
		if len(d.Args) > 2 {
			t.note(d, importer.Caveat, "ProxyPass %s: the parameters %s are not translated", p, strings.Join(d.Args[2:], " "))
		}
		u, err := url.Parse(target)
		switch {
		case !strings.HasPrefix(p, "/") || err != nil || (u.Scheme != "http" && u.Scheme != "https") || !backendHost(u.Hostname()) || !validPort(u.Port()) || u.RawQuery != "" || u.User != nil || u.Fragment != "":
			t.note(d, importer.LeftOut, "ProxyPass %s %s: only a path to an http:// or https:// URL without a query is translated; left out", p, target)
			continue
		case u.Path == "" || strings.HasSuffix(p, "/") != strings.HasSuffix(u.Path, "/"):
			t.note(d, importer.LeftOut, "ProxyPass %s %s: the path and the URL's path must both end in '/' or neither (a URL without a path is not translated); left out", p, target)
			continue
		}
		server := backendURL(u)
		t.count(d)
		s.Proxies = append(s.Proxies, &Proxy{Source: d.Source(), Path: p, Group: t.group(server, preserve), URI: u.Path})
		steps = append(steps, "# "+commentSafe(d.Source()+": ProxyPass "+strings.Join(d.Args, " ")),
			"if ($uri ~ "+quoteArg("^"+quoteMeta(mergeSlashes(p)))+") { break; }")
	}
	return steps
}

// backendHost reports whether h names a backend: an IP address or a
// host name.
func backendHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	return validHost(h) && !strings.ContainsAny(h, "*?_")
}

// backendURL is a backend's scheme://host:port, the port the scheme's
// where the URL names none.
func backendURL(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port)
}

// validPort reports whether p is empty or a port from 1 to 65535.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 65536
}

// group returns the upstream group of a backend, one per backend and
// Host setting.
func (t *translator) group(server string, preserve bool) *Group {
	for _, g := range t.res.Groups {
		if g.Server == server && g.Preserve == preserve {
			return g
		}
	}
	g := &Group{Name: "apache-" + strconv.Itoa(len(t.res.Groups)+1), Server: server, Preserve: preserve}
	t.res.Groups = append(t.res.Groups, g)
	return g
}

// proxyPreserve reads ProxyPreserveHost of dirs; def where it is not set.
func proxyPreserve(dirs []*Directive, def bool) bool {
	if d := lastDirective(dirs, "ProxyPreserveHost"); d != nil && len(d.Args) == 1 {
		return strings.EqualFold(d.Args[0], "on")
	}
	return def
}

func proxyPasses(dirs []*Directive) []*Directive {
	return directivesNamed(dirs, "ProxyPass", "ProxyPassMatch")
}

// writeProxies writes the groups and each server's forwarding locations.
func writeProxies(b *strings.Builder, res *Result) {
	for _, g := range res.Groups {
		host := "upstream"
		if g.Preserve {
			host = "preserve"
		}
		fmt.Fprintf(b, "\n# a ProxyPass backend\n[upstreams.%s]\nservers = [%s]\nhost_header = %q\n", g.Name, importer.Quote(g.Server), host)
	}
	for _, s := range res.Servers {
		for _, p := range s.Proxies {
			if p.Regex {
				writeProxyMatch(b, s, p)
				continue
			}
			fmt.Fprintf(b, "\n# %s: ProxyPass %s\n[[location]]\n", p.Source, commentSafe(p.Path))
			writeHosts(b, s.Hosts)
			fmt.Fprintf(b, "match = \"prefix\"\npath = %s\nupstream = %q\nupstream_uri = %s\n", importer.Quote(p.Path), p.Group.Name, importer.Quote(p.URI))
			// A forwarding location of /app/ answers /app with a 301
			// to /app/, as nginx's does; Apache forwards neither.
			bare := strings.TrimSuffix(p.Path, "/")
			if bare == "" || bare == p.Path || slices.ContainsFunc(s.Proxies, func(q *Proxy) bool { return q.Path == bare }) {
				continue
			}
			fmt.Fprintf(b, "\n# %s: %s is not forwarded, nor sent to %s\n[[location]]\n", p.Source, commentSafe(bare), commentSafe(p.Path))
			writeHosts(b, s.Hosts)
			fmt.Fprintf(b, "match = \"exact\"\npath = %s\n", importer.Quote(bare))
		}
	}
}

// prefixForward is the one [P] rule the import writes: a literal prefix
// and the rest, "^/app/(.*)$".
var prefixForward = regexp.MustCompile(`^\^(/[A-Za-z0-9._~/-]*/)\(\.\*\)\$?$`)

// forward writes a [P] rule of the form ProxyPass says, in server
// context and without conditions: RewriteRule ^/app/(.*)$
// http://backend/v1/$1 [P] forwards /app/x as ProxyPass /app/
// http://backend/v1/ does, at the rule's place among the rules.
func (c *rwCtx) forward(r rule) ([]string, bool, error) {
	m := prefixForward.FindStringSubmatch(r.pattern)
	target, ok := strings.CutSuffix(r.subst, "$1")
	if c.dir != "" || len(r.conds) > 0 || r.neg || m == nil || !ok || r.has("NC") {
		return nil, false, fmt.Errorf("a forward ([P]) is translated only as ProxyPass says it (server context, no condition, ^/prefix/(.*)$ to URL/$1); left out")
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !backendHost(u.Hostname()) || !validPort(u.Port()) ||
		u.RawQuery != "" || u.User != nil || u.Fragment != "" || !strings.HasSuffix(u.Path, "/") || strings.ContainsAny(target, "$%") {
		return nil, false, fmt.Errorf("a forward ([P]) to %s: not an http:// or https:// URL whose path ends in '/'; left out", r.subst)
	}
	server := backendURL(u)
	c.proxies = append(c.proxies, &Proxy{Source: r.d.Source(), Path: m[1], Group: c.t.group(server, c.t.preserve), URI: u.Path})
	return []string{"if ($uri ~ " + quoteArg("^"+quoteMeta(m[1])) + ") { break; }"}, false, nil
}

// proxyMatch reads a ProxyPassMatch: its regex is matched with the
// decoded path (r->uri), and the URL, its groups filled, is where the
// request goes; a URL without a group reference gets the whole path
// appended (ap_proxy_trans_match). It is a regex location whose steps
// rewrite the path to the URL's and keep it there (break), and a step
// that ends the server's steps where it matches, as ProxyPass's.
func (t *translator) proxyMatch(s *Server, d *Directive, preserve bool) []string {
	re, target := d.Args[0], d.Args[1]
	if target == "!" {
		t.note(d, importer.Served, "ProxyPassMatch %s !: the paths are the site's own", re)
		return nil
	}
	if len(d.Args) > 2 {
		t.note(d, importer.Caveat, "ProxyPassMatch %s: the parameters %s are not translated", re, strings.Join(d.Args[2:], " "))
	}
	scheme, rest, _ := strings.Cut(target, "://")
	hostPort, pathT, _ := strings.Cut(rest, "/")
	pathT = "/" + pathT
	u, err := url.Parse(scheme + "://" + hostPort)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !backendHost(u.Hostname()) || !validPort(u.Port()) || u.User != nil ||
		strings.ContainsAny(pathT, "?#%") || strings.Contains(pathT, "$") && !validRefs(pathT) {
		t.note(d, importer.LeftOut, "ProxyPassMatch %s %s: only an http:// or https:// URL whose path has no query and no '%%', groups as $0..$9, is translated; left out", re, target)
		return nil
	}
	repl := strings.ReplaceAll(pathT, "$0", "$uri")
	if !strings.Contains(pathT, "$") {
		// No group: the path is appended to the URL's.
		repl = strings.TrimSuffix(pathT, "/") + "$uri"
		if pathT == "/" {
			repl = "$uri"
		}
	}
	steps := []string{"rewrite " + quoteArg(re) + " " + quoteArg(repl) + " break;"}
	check := "if ($uri ~ " + quoteArg(re) + ") { break; }"
	if err := compiles(nil, append([]string{check}, steps...), nil); err != nil {
		t.note(d, importer.LeftOut, "ProxyPassMatch %s: the steps written for it do not load (%v); left out", re, err)
		return nil
	}
	for _, q := range s.Proxies {
		if !q.Regex && mayOverlap(re, q.Path) {
			t.note(d, importer.Caveat, "ProxyPassMatch %s: a path that ProxyPass %s before it also takes goes here (redirectd's regex locations win over its prefix ones), where Apache takes the first", re, q.Path)
			break
		}
	}
	t.count(d)
	s.Proxies = append(s.Proxies, &Proxy{Source: d.Source(), Path: re, Group: t.group(backendURL(u), preserve), Regex: true, Steps: steps})
	return []string{"# " + commentSafe(d.Source()+": ProxyPassMatch "+strings.Join(d.Args, " ")), check}
}

// writeProxyMatch writes a ProxyPassMatch's regex location.
func writeProxyMatch(b *strings.Builder, s *Server, p *Proxy) {
	fmt.Fprintf(b, "\n# %s: ProxyPassMatch %s\n[[location]]\n", p.Source, commentSafe(p.Path))
	writeHosts(b, s.Hosts)
	fmt.Fprintf(b, "match = \"regex\"\npath = %s\nupstream = %q\nsteps = %s\n", importer.Quote(p.Path), p.Group.Name, mapEntries(strings.Join(p.Steps, "\n")+"\n"))
}

// mayOverlap reports whether a regex may match a path under prefix: its
// literal start (after '^') and the prefix are not told apart.
func mayOverlap(re, prefix string) bool {
	if !strings.HasPrefix(re, "^") {
		return true
	}
	lit := re[1:]
	if i := strings.IndexAny(lit, `\.[]()*+?{}|^$`); i >= 0 {
		lit = lit[:i]
	}
	return strings.HasPrefix(lit, prefix) || strings.HasPrefix(prefix, lit)
}
