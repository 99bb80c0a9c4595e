package engine

import (
	"net/netip"

	"github.com/panjf2000/gnet/v2"
	"github.com/redirectd/redirectd/httpparse/proxyproto"
)

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
