package admin

import (
	"net/http"
	"net/netip"
	"strings"
)

// requireLoopbackHost wraps next so that a request whose Host is not a
// loopback name or address gets 421 Misdirected Request. It guards the
// admin server when no token is set, where the loopback address is the
// only protection: a web page can make the operator's browser resolve its
// own name to 127.0.0.1 (DNS rebinding) and then read /rules or POST
// /reload as same-origin requests, but the browser still sends the page's
// name as Host, which is how it is told apart.
//
// 421 rather than 403: the request is not refused for who sends it (no
// credential would change the answer) but for the name it is addressed to,
// which this server does not answer for (RFC 9110, section 15.5.20). A
// request with no Host at all (HTTP/1.0) comes from no browser and passes.
func requireLoopbackHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "" || isLoopbackHost(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		text(w, http.StatusMisdirectedRequest,
			"misdirected request: without [admin] token the admin server answers only Host localhost, 127.0.0.0/8 or [::1]\n")
	})
}

// isLoopbackHost reports whether h, a Host header, names the loopback
// interface: "localhost" (any case), an IPv4 address in 127.0.0.0/8 or the
// bracketed IPv6 loopback "[::1]" (an IPv4-mapped [::ffff:127.x.y.z] too),
// each with or without a port. Anything else, "localhost.example" and
// "127.0.0.1.example" included, is not.
func isLoopbackHost(h string) bool {
	name, port, bracketed := h, "", false
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return false
		}
		name, port, bracketed = h[1:end], h[end+1:], true
	} else if i := strings.IndexByte(h, ':'); i >= 0 {
		name, port = h[:i], h[i:]
	}
	if port != "" {
		if port[0] != ':' || strings.Trim(port[1:], "0123456789") != "" {
			return false
		}
	}
	if !bracketed && strings.EqualFold(name, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	if err != nil || ip.Zone() != "" || bracketed != ip.Is6() {
		return false
	}
	return ip.Unmap().IsLoopback()
}
