package engine

import (
	"strconv"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/internal/ascii"
	"github.com/redirectd/redirectd/matcher"
)

// appendLocation appends the matched rule's Location for req. With
// absolute_redirect, a Location that is a path gets the origin nginx's
// header filter puts before it (ngx_http_header_filter_module.c, with
// server_name_in_redirect off and port_in_redirect on, nginx's defaults):
// "http://" or "https://" by the listener, the request's host name, and
// the listener's port unless it is the scheme's default. A Location that
// names a host ("https://...", "//host/x") or is relative to the request's
// path ("new") is left as it is; nginx would also prefix "//host/x",
// which redirectd reads as naming a host.
func (cs *conn) appendLocation(dst []byte, m *matcher.Match, req *httpparse.Request) []byte {
	if !cs.loop.srv.opts.AbsoluteRedirect {
		return m.AppendLocation(dst, req.Query)
	}
	// The origin goes first and comes out again when the Location turns
	// out not to be a path: no second buffer, and no move in the common
	// case.
	mark := len(dst)
	dst = cs.appendOrigin(dst, req)
	start := len(dst)
	dst = m.AppendLocation(dst, req.Query)
	if loc := dst[start:]; len(loc) > 0 && loc[0] == '/' && (len(loc) == 1 || loc[1] != '/') {
		return dst
	}
	return dst[:mark+copy(dst[mark:], dst[start:])]
}

// appendOrigin appends "scheme://host[:port]" for a path Location of req.
//
// The port is the listener's, as nginx's, or with RedirectPortFromHost the
// Host header's, as Apache's (UseCanonicalName Off) for a request with a
// Host. The scheme is the listener's, as nginx's (c->ssl). One choice
// differs: behind a TLS terminator every request arrives on the plain listener,
// where nginx would send "http://" and its own port, which is why such
// sites turn absolute_redirect off. redirectd believes the
// X-Forwarded-Proto: https of a proxy it trusts (trusted_proxies; loopback
// when none are listed), as https_redirect does, and then takes the port
// from the Host header, the one the client asked the proxy for: the
// listener's port is the proxy's business.
//
// The host is the Host header's name (an absolute-form target's
// authority, as httpparse gives it), lower-cased and without its port
// and a trailing dot, as nginx's ngx_http_validate_host leaves it; with
// none (HTTP/1.0), the listener's address, as nginx's
// ngx_connection_local_sockaddr.
func (cs *conn) appendOrigin(dst []byte, req *httpparse.Request) []byte {
	cs.readScheme(true)
	forwarded := !cs.tls && cs.forwardedHTTPS(req)
	https := cs.tls || forwarded
	if https {
		dst = append(dst, "https://"...)
	} else {
		dst = append(dst, "http://"...)
	}
	name, port := splitHostPort(req.Host)
	if len(name) == 0 {
		if a := cs.local.Addr(); a.Is6() {
			dst = a.AppendTo(append(dst, '['))
			dst = append(dst, ']')
		} else if a.IsValid() {
			dst = a.AppendTo(dst)
		}
	}
	dst = ascii.AppendLower(dst, name)
	if forwarded || len(name) > 0 && cs.loop.srv.opts.RedirectPortFromHost {
		return appendHostPort(dst, port, https)
	}
	if p := cs.local.Port(); p != 0 && !(https && p == 443) && !(!https && p == 80) {
		dst = strconv.AppendUint(append(dst, ':'), uint64(p), 10)
	}
	return dst
}

// appendHostPort appends ":port" for the port of a Host header, none
// when it is empty or the scheme's default, as Apache's
// ap_is_default_port; leading zeros are dropped, as Apache writes the
// number it parsed (Host "x:080" is port 80).
func appendHostPort(dst, port []byte, https bool) []byte {
	for len(port) > 1 && port[0] == '0' {
		port = port[1:]
	}
	if len(port) == 0 || https && string(port) == "443" || !https && string(port) == "80" {
		return dst
	}
	return append(append(dst, ':'), port...)
}

// splitHostPort splits a Host value into its name, without a trailing
// dot, and its port (empty when none); an IPv6 literal keeps its
// brackets.
func splitHostPort(host []byte) (name, port []byte) {
	name, port = httpparse.SplitHostPort(host)
	if n := len(name); n > 1 && name[n-1] == '.' {
		name = name[:n-1]
	}
	return name, port
}
