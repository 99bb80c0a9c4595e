package config

import (
	"slices"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/matcher/rewrite"
)

// serverName checks a host of the location tables, which names a server
// as nginx's server_name does: an exact name, "*.example.com",
// ".example.com" or "www.example.*"; it returns the name lower case, or
// what is wrong.
func serverName(h string) (string, string) {
	head, rest := "", h
	switch {
	case strings.HasPrefix(h, "*."):
		head, rest = "*.", h[2:]
	case strings.HasPrefix(h, "."):
		head, rest = ".", h[1:]
	case strings.HasSuffix(h, ".*"):
		name, msg := asciiHost(h[:len(h)-2] + ".x")
		return strings.TrimSuffix(name, ".x") + ".*", msg
	}
	name, msg := asciiHost(rest)
	if msg == "" && strings.Contains(name, "*") {
		msg = "has a '*' inside; a wildcard is a leading \"*.\" or \".\", or a trailing \".*\""
	}
	return head + name, msg
}

// locEntry is one [[server_rewrite]] or [[location]] table: its hosts
// (none: every server), its scheme ("" both) and its steps or location.
type locEntry struct {
	hosts  []string
	scheme string
	steps  *rewrite.Text
	spec   *rewrite.LocationSpec
	line   int
}

// serverKey is one server the tables make: a name and a scheme.
type serverKey struct{ host, scheme string }

// servers are the servers entries make, in the order their names first
// appear, the host-less one first. A name is one server for both
// schemes unless a table gives it a scheme: then it is a server per
// scheme, each holding its scheme's tables and those of none, as nginx
// has a server block per listen port that names it.
func servers(entries []locEntry) []serverKey {
	names := []string{""}
	schemed := map[string]bool{}
	for _, e := range entries {
		hosts := e.hosts
		if len(hosts) == 0 {
			hosts = []string{""}
		}
		for _, h := range hosts {
			if !slices.Contains(names, h) {
				names = append(names, h)
			}
			schemed[h] = schemed[h] || e.scheme != ""
		}
	}
	var out []serverKey
	for _, h := range names {
		if schemed[h] {
			out = append(out, serverKey{h, "http"}, serverKey{h, "https"})
		} else {
			out = append(out, serverKey{h, ""})
		}
	}
	return out
}

// scheme checks a table's scheme.
func (r *locReader) scheme(s string, line int, what string) string {
	if s != "" && s != "http" && s != "https" {
		r.bad(line, what, "scheme", "%q is no scheme; \"http\" (plain requests: nginx's listen without ssl) or \"https\" (requests over TLS)", cut(s))
		return ""
	}
	return s
}

// defaultServer notes the default_server and default_server_ports of a
// [[server_rewrite]] (headed at line) whose hosts are hosts, of scheme.
func (r *locReader) defaultServer(sr *rawServerRewrite, hosts []string, scheme string, line int, what string) {
	switch {
	case len(sr.DefaultServerPorts) > 0:
		if len(hosts) != 1 {
			r.bad(line, what, "default_server_ports", "needs one host: the server that answers the hosts no server names on these ports")
			return
		}
		if r.portDefaults == nil {
			r.portDefaults = map[serverKey][]string{}
		}
		for _, port := range sr.DefaultServerPorts {
			if port < 1 || port > 65535 {
				r.bad(line, what, "default_server_ports", "%d is not a port", port)
			}
			key := serverKey{hosts[0], scheme}
			r.portDefaults[key] = append(r.portDefaults[key], strconv.Itoa(port))
		}
	case sr.DefaultServer:
		if len(hosts) != 1 {
			r.bad(line, what, "default_server", "needs one host: the server that answers the hosts no server names")
			return
		}
		if r.defHost == nil {
			r.defHost = map[string]string{}
		}
		for _, sch := range schemesOf(scheme) {
			if h, ok := r.defHost[sch]; ok && h != hosts[0] {
				r.bad(line, what, "default_server", "a second default server (%q is one)", cut(h))
				return
			}
		}
		for _, sch := range schemesOf(scheme) {
			r.defHost[sch] = hosts[0]
		}
	}
}

// schemesOf are the schemes a table of scheme serves.
func schemesOf(scheme string) []string {
	if scheme == "" {
		return []string{"http", "https"}
	}
	return []string{scheme}
}

// setDefault makes hs a default server where the tables said so.
func (r *locReader) setDefault(hs *rewrite.HostSpec) {
	if hs.Host == "" {
		return
	}
	for _, sch := range schemesOf(hs.Scheme) {
		hs.Default = hs.Default || r.defHost[sch] == hs.Host
	}
	keys := []serverKey{{hs.Host, ""}}
	if hs.Scheme != "" {
		keys = append(keys, serverKey{hs.Host, hs.Scheme})
	}
	for _, key := range keys {
		if ports := r.portDefaults[key]; len(ports) > 0 {
			hs.Default, hs.DefaultPorts = true, append(hs.DefaultPorts, ports...)
		}
	}
}
