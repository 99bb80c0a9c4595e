package engine

import (
	"bytes"
	"net"
	"net/netip"

	"github.com/VictoriaMetrics/metrics"
	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/httpparse/proxyproto"
)

// ProxyOptions say whom the server believes about a client's address and
// scheme: the load balancers in front of it.
type ProxyOptions struct {
	// Protocol requires a PROXY protocol header (v1 or v2) at the start of
	// every connection, and only from a Trusted peer: a connection from
	// anyone else is closed at once, as is one whose first bytes are not a
	// header. The header's source address is then the connection's client.
	Protocol bool
	// Trusted are the proxies whose PROXY header, X-Forwarded-For and
	// X-Forwarded-Proto are believed. When empty, only X-Forwarded-Proto
	// is believed, and only from loopback peers: a TLS terminator on the
	// same host, which https_redirect relied on before this option.
	Trusted []netip.Prefix
}

// proxyPolicy is a server's ProxyOptions with their counters.
type proxyPolicy struct {
	ProxyOptions
	// rejected counts connections closed for their PROXY header, by
	// reason (redirectd_proxy_protocol_rejected_total).
	rejected [numProxyRejects]*metrics.Counter
}

// proxyReject is why a connection was refused for its PROXY header.
type proxyReject uint8

const (
	// ppUntrusted: a peer outside trusted_proxies.
	ppUntrusted proxyReject = iota
	// ppMissing: the first bytes are not a PROXY header.
	ppMissing
	// ppMalformed: a header this server does not accept.
	ppMalformed
	numProxyRejects
)

var proxyRejectNames = [numProxyRejects]string{"untrusted", "missing", "malformed"}

func (p *proxyPolicy) init(o ProxyOptions, set *metrics.Set) {
	p.ProxyOptions = o
	for r := range numProxyRejects {
		p.rejected[r] = set.NewCounter(`redirectd_proxy_protocol_rejected_total{reason="` + proxyRejectNames[r] + `"}`)
	}
}

// trusts reports whether ip is inside trusted_proxies. A linear scan: a
// list is a few prefixes, and it runs once per connection, or per
// X-Forwarded-For entry walked.
func (p *proxyPolicy) trusts(ip netip.Addr) bool {
	for _, pr := range p.Trusted {
		if pr.Contains(ip) {
			return true
		}
	}
	return false
}

// trustsProto reports whether X-Forwarded-Proto from peer is believed.
func (p *proxyPolicy) trustsProto(peer netip.Addr) bool {
	if len(p.Trusted) == 0 {
		return peer.IsLoopback()
	}
	return p.trusts(peer)
}

// proxyConn is what a connection's peer is trusted with.
type proxyConn struct {
	// waiting is set until the PROXY header is read; peer is the address
	// the connection came from (the proxy's, with the PROXY protocol).
	waiting bool
	peer    netip.Addr
	// xff: X-Forwarded-For decides each request's client; xfp:
	// X-Forwarded-Proto decides its scheme (https_redirect, when.scheme,
	// $scheme).
	xff, xfp bool
}

// trust sets what the connection's client (the peer, or the client named
// by the PROXY header) is trusted with.
func (pc *proxyConn) trust(p *proxyPolicy, client netip.Addr) {
	pc.xff = p.trusts(client) // never with an empty list
	pc.xfp = p.trustsProto(client)
}

// open decides, in OnOpen, whether a connection from peer is served, and
// what it is trusted with. client is the address to count it by: peer,
// or, with the PROXY protocol, none yet: a load balancer carries many
// clients, so its connections count against max_connections_per_ip only
// once their header names the client (proxyHeader), or names none.
func (p *proxyPolicy) open(peer netip.Addr) (pc proxyConn, client netip.Addr, ok bool) {
	pc.peer = peer
	if !p.Protocol {
		pc.trust(p, peer)
		return pc, peer, true
	}
	if !p.trusts(peer) {
		// Nothing it sends can be believed, and a header is required: it
		// is closed before reading a byte.
		p.rejected[ppUntrusted].Inc()
		return pc, netip.Addr{}, false
	}
	pc.waiting = true
	return pc, netip.Addr{}, true
}

// proxyHeader reads the PROXY header from the start of buf, the first
// bytes of the connection, in OnTraffic. Once it is whole, it is
// discarded, the client it names becomes the connection's (cs.ip), and
// that client is counted against its limit; rest is what follows the
// header in buf, and more says whether serve has bytes to answer. A
// partial header waits for more bytes (proxyproto bounds it), under
// header_timeout; anything else closes the connection.
func (cs *conn) proxyHeader(c gnet.Conn, buf []byte) (rest []byte, more bool, action gnet.Action) {
	s := cs.loop.srv
	var h proxyproto.Header
	n, err := proxyproto.Parse(buf, &h)
	switch {
	case err == proxyproto.ErrMissing:
		s.proxy.rejected[ppMissing].Inc()
		return nil, false, gnet.Close
	case err != nil:
		s.proxy.rejected[ppMalformed].Inc()
		return nil, false, gnet.Close
	case n == 0:
		if cs.headStart == 0 {
			cs.headStart = cs.active
		}
		return nil, false, gnet.None
	}
	c.Discard(n)
	s.m.bytesIn.Add(n)
	cs.headStart = 0
	cs.proxy.waiting = false
	// LOCAL (a balancer's health check) and headers without an IP
	// address keep the connection's own, as the spec asks.
	client := cs.proxy.peer
	if h.Command == proxyproto.Proxy && h.Source.IsValid() {
		client = h.Source.Addr().Unmap()
	}
	if r := s.conns.openIP(client); r != accepted {
		s.m.rejected[r].Inc()
		return nil, false, gnet.Close
	}
	cs.ip = client
	cs.proxy.trust(&s.proxy, client)
	return buf[n:], n < len(buf), gnet.None
}

func remoteIP(a net.Addr) netip.Addr {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

func addrPort(a net.Addr) netip.AddrPort {
	if t, ok := a.(*net.TCPAddr); ok {
		ap := t.AddrPort()
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	}
	return netip.AddrPort{}
}

// https reports whether req came over https: through the TLS listener, or
// marked so by a TLS terminator in front (X-Forwarded-Proto,
// forwardedHTTPS) that https_redirect trusts or that trusted_proxies
// names: rules of one scheme and servers of TLS ports answer behind a
// listed terminator as they do on the TLS listener, with or without
// https_redirect. (Loopback, trusted by https_redirect when the list
// is empty, is not believed otherwise: a local client's header would
// change what it is forwarded as.)
func (cs *conn) https(req *httpparse.Request) bool {
	return cs.tls || (cs.loop.srv.opts.HTTPSRedirect || cs.proxy.xff) && cs.forwardedHTTPS(req)
}

// forwardedHTTPS reports whether the request was marked as received over
// https by a proxy this connection's client is trusted as.
func (cs *conn) forwardedHTTPS(req *httpparse.Request) bool {
	return cs.proxy.xfp && forwardedHTTPS(req)
}

// forwardedHTTPS reports whether a TLS terminator in front marked the
// request as received over https. Proxies append to X-Forwarded-Proto, so
// its first value is the client's.
func forwardedHTTPS(req *httpparse.Request) bool {
	v, _, _ := bytes.Cut(req.Header([]byte("x-forwarded-proto")), []byte{','})
	return bytes.EqualFold(bytes.TrimSpace(v), []byte("https"))
}

// requestClient is the client address of a request: the connection's
// (cs.ip: the peer, or the client its PROXY header named), or, when that
// is a trusted proxy, the last untrusted hop of X-Forwarded-For. It
// allocates nothing, and from an untrusted peer costs one branch.
func (cs *conn) requestClient(req *httpparse.Request) netip.Addr {
	if !cs.proxy.xff {
		return cs.ip
	}
	p := &cs.loop.srv.proxy
	client := cs.ip
	// Proxies append, and several field lines are one list in order (RFC
	// 9110 5.3): walk from the right, past the trusted hops.
	for i := len(req.Headers) - 1; i >= 0; i-- {
		h := &req.Headers[i]
		if !h.Is("x-forwarded-for") {
			continue
		}
		list := h.Value
		for len(list) > 0 {
			var entry []byte
			if j := bytes.LastIndexByte(list, ','); j >= 0 {
				list, entry = list[:j], list[j+1:]
			} else {
				list, entry = nil, list
			}
			a, ok := xffAddr(bytes.TrimSpace(entry))
			if !ok {
				// Not an address (garbage, "unknown", an empty entry):
				// nothing left of it can be trusted either, and the last
				// address reached is the best known.
				return client
			}
			client = a
			if !p.trusts(a) {
				return client
			}
		}
	}
	// Every hop was trusted: the leftmost is the client.
	return client
}

// xffAddr parses an X-Forwarded-For entry: an address, or an address and
// port as some proxies write them (192.0.2.1:4711, [2001:db8::1]:4711).
func xffAddr(b []byte) (netip.Addr, bool) {
	if len(b) > 0 && b[0] == '[' {
		end := bytes.IndexByte(b, ']')
		if end < 0 || end+1 < len(b) && b[end+1] != ':' {
			return netip.Addr{}, false
		}
		b = b[1:end]
	} else if i := bytes.IndexByte(b, ':'); i >= 0 && bytes.IndexByte(b[i+1:], ':') < 0 {
		b = b[:i] // one colon: IPv4 and a port
	}
	a, ok := httpparse.ParseIP(b)
	return a.Unmap(), ok
}
