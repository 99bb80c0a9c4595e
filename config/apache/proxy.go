package apache

import (
	"fmt"
	"net"
	"net/url"
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
		case htDirs[dirPath(p)] && strings.HasSuffix(p, "/"):
			t.note(d, importer.LeftOut, "ProxyPass %s: a .htaccess is given for the same directory, and a location of one path forwards or runs steps, not both; left out", p)
			continue
		}
		server := u.Scheme + "://" + u.Host
		if u.Port() == "" {
			server += map[string]string{"http": ":80", "https": ":443"}[u.Scheme]
		}
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
	var out []*Directive
	for _, d := range dirs {
		if !d.Section && d.Is("ProxyPass") {
			out = append(out, d)
		}
	}
	return out
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
			fmt.Fprintf(b, "\n# %s: ProxyPass %s\n[[location]]\n", p.Source, commentSafe(p.Path))
			if len(s.Hosts) > 0 {
				hosts := make([]string, len(s.Hosts))
				for i, h := range s.Hosts {
					hosts[i] = importer.Quote(h)
				}
				fmt.Fprintf(b, "hosts = [%s]\n", strings.Join(hosts, ", "))
			}
			fmt.Fprintf(b, "match = \"prefix\"\npath = %s\nupstream = %q\nupstream_uri = %s\n", importer.Quote(p.Path), p.Group.Name, importer.Quote(p.URI))
		}
	}
}
