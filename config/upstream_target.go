package config

import (
	"net"
	"strconv"
	"strings"
)

// Target is one server of an upstream group, parsed from servers.
type Target struct {
	// Addr is the host:port dialled.
	Addr string
	// TLS: the server was written https:// and is reached over TLS.
	TLS bool
	// Host is Addr's host, without brackets: the name sent in SNI and
	// verified when tls_server_name is not set.
	Host string
}

// parseTarget reads one entry of servers: "host:port", "http://host[:port]"
// (port 80 when left out) or "https://host[:port]" (443). It says what is
// wrong with an entry it cannot take.
func parseTarget(s string) (Target, string) {
	scheme, rest, hasScheme := strings.Cut(s, "://")
	if !hasScheme {
		rest = s
	}
	t, port := Target{}, ""
	switch {
	case !hasScheme:
	case scheme == "http":
		port = "80"
	case scheme == "https":
		t.TLS, port = true, "443"
	default:
		return t, "has a scheme other than http:// or https://; write \"https://host\" for TLS, \"host:port\" or \"http://host\" for plain HTTP"
	}
	if strings.ContainsAny(rest, "/?#@") {
		return t, "is not a server address; give host:port, http://host[:port] or https://host[:port] without a path"
	}
	host, p, err := net.SplitHostPort(rest)
	switch {
	case err == nil:
		port = p
	case !hasScheme:
		return t, "is not host:port; write it as \"127.0.0.1:8081\", or \"https://host\" for TLS"
	case strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]"):
		host = rest[1 : len(rest)-1]
	case strings.Contains(rest, ":"):
		return t, "is not a server address; write an IPv6 address in brackets, such as \"https://[::1]:8443\""
	default:
		host = rest
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return t, "has no port from 1 to 65535; write it as \"127.0.0.1:8081\""
	}
	if host == "" || strings.ContainsAny(host, " \t[]") {
		return t, "has no host; write it as \"127.0.0.1:8081\""
	}
	if ip := net.ParseIP(host); ip == nil {
		if msg := checkHost(strings.ToLower(host)); msg != "" || strings.HasPrefix(host, "*.") {
			return t, "has a host that is not a host name or IP address"
		}
	}
	t.Addr, t.Host = net.JoinHostPort(host, port), host
	return t, ""
}

// checkHostValue says what is wrong with a literal host_header value (a
// host, with a port or not, sent as the Host field), or "".
func checkHostValue(v string) string {
	if len(v) > 255 {
		return "is longer than 255 bytes"
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._:[]", c) >= 0:
		default:
			return "is not a host name"
		}
	}
	return ""
}
