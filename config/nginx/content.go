package nginx

import (
	"net"
	"slices"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// What nginx answers itself rather than with a redirect: proxy_pass and
// upstream blocks, which become redirectd's [upstream], and the
// directives that serve files or pages, which redirectd has no equivalent
// for. Each is noted with its place, so that an import never forwards
// nothing where nginx proxied, or serves nothing without saying so.

// servedDirectives are the directives that make nginx answer with
// content of its own (files, error pages, other protocols' backends).
var servedDirectives = map[string]string{
	"root":         "serves files from",
	"alias":        "serves files from",
	"try_files":    "serves the first file found of",
	"error_page":   "answers errors with",
	"index":        "serves the index file",
	"autoindex":    "lists folders",
	"fastcgi_pass": "passes requests to FastCGI at",
	"uwsgi_pass":   "passes requests to uwsgi at",
	"scgi_pass":    "passes requests to SCGI at",
	"grpc_pass":    "passes requests to gRPC at",
}

// proxy is one proxy_pass.
type proxy struct {
	d   *Directive
	srv *server
}

// upstreamBlock is one upstream block: its servers as host:port.
type upstreamBlock struct {
	d       *Directive
	servers []string
	balance string
}

// Upstream is the [upstream] the import writes: where redirectd forwards
// its misses, from nginx's proxy_pass.
type Upstream struct {
	Servers    []string
	Balance    string // "" (round robin) or "least_conn"
	HostHeader string // "preserve" or "upstream"
	Origin     *Directive
}

// readContent records a directive that serves content; it reports
// whether d was one.
func (m *model) readContent(d *Directive, s *server) bool {
	switch {
	case d.Name == "proxy_pass":
		m.proxies = append(m.proxies, proxy{d: d, srv: s})
		return true
	case d.Name == "proxy_set_header" && len(d.Args) == 2 && strings.EqualFold(d.Args[0], "host"):
		m.hostHeader = append(m.hostHeader, d)
		return true
	case servedDirectives[d.Name] != "":
		what := servedDirectives[d.Name]
		if len(d.Args) > 0 && d.Name != "index" && d.Name != "autoindex" {
			what += " " + strings.Join(d.Args, " ")
		}
		m.note(d, "%s: nginx %s here; redirectd serves no content of its own, so requests nginx answers so are answered 404, or forwarded to [upstream] when one is set", d.Name, what)
		m.notes[len(m.notes)-1].Kind = importer.Served
		return true
	}
	return false
}

// readUpstream reads an upstream block.
func (m *model) readUpstream(d *Directive) {
	if len(d.Args) != 1 {
		m.note(d, "upstream takes a name and a block")
		return
	}
	u := &upstreamBlock{d: d}
	for _, c := range d.Block {
		switch {
		case c.Name == "server" && len(c.Args) >= 1:
			if strings.HasPrefix(c.Args[0], "unix:") {
				m.note(c, "upstream %s: server %s: redirectd forwards over TCP only; left out", d.Args[0], c.Args[0])
				continue
			}
			u.servers = append(u.servers, hostPort(c.Args[0], "80"))
			for _, a := range c.Args[1:] {
				if a == "backup" || a == "down" || strings.HasPrefix(a, "weight=") {
					m.note(c, "upstream %s: server %s %s: redirectd balances its servers evenly and has no backup or down servers; the server is used as any other", d.Args[0], c.Args[0], a)
				}
			}
		case c.Name == "least_conn":
			u.balance = "least_conn"
		case c.Name == "keepalive" || c.Name == "keepalive_timeout" || c.Name == "keepalive_requests" || c.Name == "zone":
			// redirectd pools its connections to the upstream anyway.
		default:
			m.note(c, "upstream %s: %s has no [upstream] equivalent; left out", d.Args[0], c.Name)
		}
	}
	m.upstreams[d.Args[0]] = u
}

// hostPort writes an nginx address as host:port, with def as the port
// when it names none.
func hostPort(addr, def string) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(strings.Trim(addr, "[]"), def)
}

// upstream makes [upstream] from the proxy_pass directives: the first
// that can be one decides it, and each that sends elsewhere, or cannot be
// expressed, is noted, as is each server that proxies nothing while
// others do (redirectd forwards every miss).
func (m *model) upstream() *Upstream {
	var up *Upstream
	proxying := map[*server]bool{}
	for _, p := range m.proxies {
		servers, balance, ok := m.proxyServers(p.d)
		if !ok {
			continue
		}
		proxying[p.srv] = true
		if up == nil {
			up = &Upstream{Servers: servers, Balance: balance, Origin: p.d, HostHeader: "upstream"}
			continue
		}
		if !slices.Equal(up.Servers, servers) {
			m.note(p.d, "proxy_pass %s: redirectd forwards every request it does not redirect to one [upstream], written from the proxy_pass at %s (%s); requests nginx proxies here to %s go there instead",
				p.d.Args[0], up.Origin.Source(), strings.Join(up.Servers, ", "), strings.Join(servers, ", "))
		}
	}
	if up == nil {
		return nil
	}
	// nginx sends the upstream's own name as Host unless told otherwise
	// (proxy_set_header Host $host).
	for _, d := range m.hostHeader {
		switch d.Args[1] {
		case "$host", "$http_host":
			up.HostHeader = "preserve"
		default:
			m.note(d, "proxy_set_header Host %s: redirectd sends the client's Host or the upstream's address; left out", d.Args[1])
		}
	}
	for _, s := range m.servers {
		if !proxying[s] {
			m.note(s.d, "this server proxies nothing: nginx answers the requests it does not redirect itself (404 or its content), redirectd forwards them to [upstream] (%s)", strings.Join(up.Servers, ", "))
		}
	}
	return up
}

// proxyServers reads a proxy_pass target: an upstream's servers, or one
// address.
func (m *model) proxyServers(d *Directive) ([]string, string, bool) {
	if len(d.Args) != 1 {
		m.note(d, "proxy_pass takes one URL; left out")
		return nil, "", false
	}
	target := d.Args[0]
	rest, ok := strings.CutPrefix(target, "http://")
	switch {
	case strings.HasPrefix(target, "https://"):
		m.note(d, "proxy_pass %s: redirectd forwards over plain HTTP only; left out", target)
		return nil, "", false
	case !ok || strings.Contains(target, "$"):
		m.note(d, "proxy_pass %s: only http://host[:port] and http://upstream_name are translated (no variables); left out", target)
		return nil, "", false
	}
	host, uri, hasURI := strings.Cut(rest, "/")
	if hasURI && uri != "" {
		m.note(d, "proxy_pass %s: nginx replaces the location's prefix with /%s; redirectd forwards the request's target as sent", target, uri)
	}
	if strings.HasPrefix(host, "unix:") {
		m.note(d, "proxy_pass %s: redirectd forwards over TCP only; left out", target)
		return nil, "", false
	}
	if u := m.upstreams[host]; u != nil {
		if len(u.servers) == 0 {
			m.note(d, "proxy_pass %s: upstream %s has no server redirectd can use; left out", target, host)
			return nil, "", false
		}
		return u.servers, u.balance, true
	}
	return []string{hostPort(host, "80")}, "", true
}
