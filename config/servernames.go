package config

import (
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

// defaultServer notes the default_server and default_server_ports of a
// [[server_rewrite]] (headed at line) whose hosts are hosts.
func (r *locReader) defaultServer(sr *rawServerRewrite, hosts []string, line int, what string) {
	switch {
	case len(sr.DefaultServerPorts) > 0:
		if len(hosts) != 1 {
			r.bad(line, what, "default_server_ports", "needs one host: the server that answers the hosts no server names on these ports")
			return
		}
		if r.portDefaults == nil {
			r.portDefaults = map[string][]string{}
		}
		for _, port := range sr.DefaultServerPorts {
			if port < 1 || port > 65535 {
				r.bad(line, what, "default_server_ports", "%d is not a port", port)
			}
			r.portDefaults[hosts[0]] = append(r.portDefaults[hosts[0]], strconv.Itoa(port))
		}
	case sr.DefaultServer:
		if len(hosts) != 1 {
			r.bad(line, what, "default_server", "needs one host: the server that answers the hosts no server names")
		} else if r.defHost != "" && r.defHost != hosts[0] {
			r.bad(line, what, "default_server", "a second default server (%q is one)", cut(r.defHost))
		} else {
			r.defHost = hosts[0]
		}
	}
}

// setDefault makes hs a default server where the tables said so.
func (r *locReader) setDefault(hs *rewrite.HostSpec) {
	if hs.Host == "" {
		return
	}
	hs.Default = hs.Host == r.defHost
	if ports := r.portDefaults[hs.Host]; len(ports) > 0 {
		hs.Default, hs.DefaultPorts = true, ports
	}
}
