package nginx

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// Result is what Translate makes of a config.
type Result struct {
	// Notes lists what was not translated, or not faithfully, in the
	// order found.
	Notes []Note
	// Listen are nginx's plain and TLS addresses (the first of each
	// kind), as redirectd's [server] listen and [tls] listen write them;
	// "" for none.
	Listen [2]string
	// Certificates are the ssl_certificate and ssl_certificate_key
	// pairs, for [[tls.certificate]].
	Certificates []Certificate
	// Groups are the upstream groups nginx's proxy_pass directives send
	// to, each written as [upstreams.NAME]: a location names its own, and
	// a request no location forwards is answered 404, as nginx answers
	// it without files.
	Groups []*Group
	// Structural are the servers, written as [[server_rewrite]] and
	// [[location]] tables (structural.go). With any, NginxURI writes
	// [rules.defaults] uri = "nginx" (KeepSlashes: merge_slashes =
	// false) and AbsoluteRedirect [server] absolute_redirect, nginx's
	// default.
	Structural                              []*Structural
	NginxURI, KeepSlashes, AbsoluteRedirect bool
	// Paths says, per server block, how it was translated.
	Paths []string
	// loadProbes are the self-check's requests and nginx's answers, for
	// CheckLoaded.
	loadProbes []loadProbe
	// aside are the notes Blocking does not count (model.noteAside).
	aside map[Note]bool
}

// Certificate is one server's ssl_certificate and ssl_certificate_key.
type Certificate struct {
	Cert, Key string
	Origin    *Directive
	// Missing: a file cannot be read where the import runs, so [tls] is
	// written as a comment (check and serve would refuse it).
	Missing bool
}

// Counts returns how many tables of each kind the result holds, for the
// report's counts.
func (r *Result) Counts() map[string]int {
	c := map[string]int{}
	for _, st := range r.Structural {
		// As writeStructural writes them: the default server's table,
		// which holds the steps unless it is of one scheme only, then
		// the steps of the other hosts.
		hosts := len(st.Hosts)
		if st.Default {
			c["[[server_rewrite]]"]++
			if st.DefaultScheme == "" {
				hosts--
			}
		}
		if len(st.Steps) > 0 && (hosts > 0 || st.Hosts == nil) {
			c["[[server_rewrite]]"]++
		}
		if n := countLocs(st.Locations); n > 0 {
			c["[[location]]"] += n
		}
	}
	if n := len(allMaps(r.Structural)); n > 0 {
		c["[[location_map]]"] = n
	}
	return c
}

// Translate turns the parsed config into redirectd's location model:
// each server block as [[server_rewrite]] and [[location]] tables.
func Translate(dirs []*Directive) *Result {
	m := build(dirs)
	t := &translator{m: m, dirs: dirs, passGroup: map[*location]*Group{}, groupByKey: map[string]*Group{}, structSrv: map[*server]bool{}}
	if len(m.servers) == 0 {
		m.note(nil, "no server block found: nothing to translate")
	}
	t.fitMaps()
	claimed := newNameClaims()
	for _, s := range m.servers {
		t.structural(s, claimed)
	}
	t.nameGroups()
	res := &Result{Groups: t.groups, Structural: t.structs, Paths: t.paths}
	t.structuralSettings(res)
	for k := range 2 {
		res.Listen[k] = listenAddr(m.addrs[k], m.ports[k])
	}
	seen := map[Certificate]bool{}
	for _, c := range m.certs {
		if c.file == "" || c.key == "" {
			m.note(c.d, "a server needs both ssl_certificate and ssl_certificate_key for [[tls.certificate]]; left out")
			continue
		}
		x := Certificate{Cert: certPath(dirs, c.file), Key: certPath(dirs, c.key)}
		if !seen[x] {
			seen[x] = true
			x.Origin = c.d
			for _, f := range []string{x.Cert, x.Key} {
				if _, err := os.Stat(f); err != nil && !x.Missing {
					x.Missing = true
					m.note(c.d, "%s cannot be read here (%v): [tls] is written as a comment, to uncomment where nginx's certificate files are", f, errors.Unwrap(err))
				}
			}
			res.Certificates = append(res.Certificates, x)
		}
	}
	if m.ports[1] != "" && len(res.Certificates) == 0 {
		m.note(nil, "nginx listens with ssl, but no server names its ssl_certificate and ssl_certificate_key; add [[tls.certificate]] to [tls]")
	}
	t.check(res)
	res.Notes, res.aside = m.notes, m.aside
	return res
}

// structuralSettings sets what servers written as locations need in
// res: nginx's $uri and absolute Locations.
func (t *translator) structuralSettings(res *Result) {
	if len(t.structs) == 0 {
		return
	}
	res.NginxURI, res.AbsoluteRedirect = true, t.absolute()
	res.KeepSlashes = anyDirective(t.dirs, "merge_slashes", "off")
}

// certPath is a certificate file's path as redirectd reads it: nginx
// reads a relative one from its prefix, taken as the main file's folder.
func certPath(dirs []*Directive, p string) string {
	if filepath.IsAbs(p) || len(dirs) == 0 {
		return p
	}
	return filepath.Join(filepath.Dir(dirs[0].File), p)
}

// listenAddr writes nginx's listen address as redirectd's host:port:
// "443" is every IPv4 address, as nginx reads it.
func listenAddr(addr, port string) string {
	switch {
	case port == "":
		return ""
	case addr == port:
		return "0.0.0.0:" + port
	case strings.HasPrefix(addr, "*:"):
		return "0.0.0.0:" + port
	case strings.HasSuffix(addr, ":"+port):
		return addr
	}
	return net.JoinHostPort(addr, port)
}

type translator struct {
	m    *model
	dirs []*Directive
	// passGroup is the group of each proxying location (nil: it cannot be
	// one), groupByKey each group by what it holds, groups those the
	// locations use (proxy.go).
	passGroup  map[*location]*Group
	groupByKey map[string]*Group
	groups     []*Group
	// noted avoids repeating one note.
	noted map[string]bool
	// structs are the servers written as the location model, structSrv
	// the same by server.
	structs   []*Structural
	structSrv map[*server]bool
	paths     []string
}

func (t *translator) noteOnce(d *Directive, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := d.Source() + msg
	if t.noted == nil {
		t.noted = map[string]bool{}
	}
	if !t.noted[key] {
		t.noted[key] = true
		t.m.note(d, "%s", msg)
	}
}

// probeHost is a host nginx would send to s.
func probeHost(s *server) string {
	for _, n := range s.names {
		switch {
		case strings.HasPrefix(n, "*."):
			return "probe" + n[1:]
		case strings.HasPrefix(n, "."):
			return n[1:]
		default:
			return n
		}
	}
	return "probe.invalid"
}

func directiveText(d *Directive) string {
	args := make([]string, len(d.Args))
	for i, a := range d.Args {
		args[i] = a
		if a == "" {
			args[i] = `""`
		}
	}
	return strings.TrimSpace(d.Name + " " + strings.Join(args, " "))
}
