package nginx

import (
	"net"
	"strings"

	"github.com/redirectd/redirectd/config/importer"
)

// What nginx answers itself rather than with a redirect: proxy_pass and
// upstream blocks, which become redirectd's upstream groups (proxy.go),
// and the directives that serve files or pages,
// which redirectd has no equivalent for. Each is noted with its place, so that an import never forwards
// nothing where nginx proxied, or serves nothing without saying so.

// servedDirectives are the directives that make nginx answer with
// content of its own (files, error pages, other protocols' backends).
var servedDirectives = map[string]string{
	"root":         "serves files from",
	"alias":        "serves files from",
	"try_files":    "serves the first file found of",
	"index":        "serves the index file",
	"autoindex":    "lists folders",
	"fastcgi_pass": "passes requests to FastCGI at",
	"uwsgi_pass":   "passes requests to uwsgi at",
	"scgi_pass":    "passes requests to SCGI at",
	"grpc_pass":    "passes requests to gRPC at",
}

// upstreamBlock is one upstream block: its servers as host:port.
type upstreamBlock struct {
	d       *Directive
	servers []string
	balance string
}

// readContent records a directive that serves content, or one of the
// proxy_* directives of a server (l nil) or location; it reports whether
// d was one.
func (m *model) readContent(d *Directive, s *server, l *location) bool {
	lvl := s.proxy
	if l != nil {
		lvl = l.proxy
	}
	switch {
	case d.Name == "proxy_pass" && l == nil:
		m.note(d, "proxy_pass at server level: nginx refuses it (it belongs in a location, such as location /); left out")
		return true
	case d.Name == "proxy_pass":
		l.pass, l.backend = d, true
		return true
	case lvl.add(d):
		return true
	case servedDirectives[d.Name] != "":
		if strings.HasSuffix(d.Name, "_pass") && l != nil {
			l.backend = true
		}
		if d.Name == "try_files" && l != nil && len(d.Args) > 1 && strings.HasPrefix(d.Args[len(d.Args)-1], "@") {
			l.tryNamed = d.Args[len(d.Args)-1]
		}
		what := servedDirectives[d.Name]
		if len(d.Args) > 0 && d.Name != "index" && d.Name != "autoindex" {
			what += " " + strings.Join(d.Args, " ")
		}
		if l != nil && d.Name == "try_files" && len(d.Args) > 1 {
			// A URI or =CODE is run as a step, a named location
			// either lends its proxy_pass or is run as a step.
			m.note(d, "%s: nginx %s here; redirectd has no files, so it takes the fallback %s for every request", d.Name, what, d.Args[len(d.Args)-1])
		} else {
			m.note(d, "%s: nginx %s here; redirectd serves no content of its own, so requests nginx answers so are answered 404", d.Name, what)
		}
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
	u, name := &upstreamBlock{d: d}, d.Args[0]
	var backups []string
	for _, c := range d.Block {
		switch {
		case c.Name == "server" && len(c.Args) >= 1:
			if strings.HasPrefix(c.Args[0], "unix:") {
				m.note(c, "upstream %s: server %s: redirectd forwards over TCP only; left out", name, c.Args[0])
				continue
			}
			addr, backup := hostPort(c.Args[0], "80"), false
			if !validAddr(addr) {
				m.note(c, "upstream %s: server %s is not a host and port redirectd can dial; left out", name, c.Args[0])
				continue
			}
			for _, a := range c.Args[1:] {
				switch {
				case a == "down":
					addr = "" // nginx sends it nothing
				case a == "backup":
					backup = true
				case strings.HasPrefix(a, "weight="), strings.HasPrefix(a, "max_fails="), strings.HasPrefix(a, "fail_timeout="), strings.HasPrefix(a, "max_conns="), strings.HasPrefix(a, "slow_start="):
					m.note(c, "upstream %s: server %s %s: redirectd balances a group's servers evenly and takes a server out by its own passive and active health checks ([upstream] health_check); %s is not translated", name, c.Args[0], a, a)
				}
			}
			switch {
			case addr == "":
			case backup:
				backups = append(backups, addr)
				m.note(c, "upstream %s: server %s backup: redirectd has no backup servers (nginx sends it requests only while every other server is down); left out", name, c.Args[0])
			default:
				u.servers = append(u.servers, addr)
			}
		case c.Name == "least_conn":
			u.balance = "least_conn"
		case c.Name == "keepalive" || c.Name == "keepalive_timeout" || c.Name == "keepalive_requests" || c.Name == "keepalive_time" || c.Name == "zone":
			// redirectd pools its connections to the upstream anyway.
		case c.Name == "hash" || c.Name == "ip_hash" || c.Name == "random" || c.Name == "sticky":
			m.note(c, "upstream %s: %s: redirectd balances by round robin or least_conn only, so a client's requests may reach different servers; left out", name, c.Name)
		default:
			m.note(c, "upstream %s: %s has no upstream group equivalent; left out", name, c.Name)
		}
	}
	if len(u.servers) == 0 {
		u.servers = backups // only backups: nginx uses them
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
