package engine

import (
	"net/netip"
	"sync/atomic"
)

// connLimiter counts open connections, in all and per client address, an
// IPv6 address counted by its prefix of v6bits (see Options.IPv6Prefix).
// Connections of one address spread over every event loop (SO_REUSEPORT
// hashes the whole 4-tuple), so the count is shared: a map split into
// shards (ipCounts), taken once when a connection opens and once when it
// closes, never while serving requests.
type connLimiter struct {
	max    int
	v6bits int
	total  atomic.Int64
	perIP  ipCounts
}

func (l *connLimiter) init(max, maxPerIP, v6bits int) {
	l.max, l.v6bits = max, v6bits
	l.perIP.init(maxPerIP)
}

// client is what ip is counted as: an IPv4 address as it is, an IPv6 one
// as the first address of its prefix (zone dropped), since one IPv6 host
// is usually given a whole /64 and may rotate through it.
func (l *connLimiter) client(ip netip.Addr) netip.Addr {
	if !ip.Is6() || ip.Is4In6() {
		return ip
	}
	p, err := ip.Prefix(l.v6bits)
	if err != nil {
		return ip
	}
	return p.Addr()
}

// rejectReason names a limit a new connection is over.
type rejectReason uint8

const (
	accepted rejectReason = iota
	overTotal
	overPerIP
)

// open counts a new connection from ip, unless it is over a limit. An
// invalid ip (a client not known yet: see proxyPolicy.open) is counted in
// the total only; openIP counts it once it is known.
func (l *connLimiter) open(ip netip.Addr) rejectReason {
	if l.total.Add(1) > int64(l.max) {
		l.total.Add(-1)
		return overTotal
	}
	if r := l.openIP(ip); r != accepted {
		l.total.Add(-1)
		return r
	}
	return accepted
}

// openIP counts a connection, already in the total, against ip's limit.
func (l *connLimiter) openIP(ip netip.Addr) rejectReason {
	if !ip.IsValid() {
		return accepted
	}
	if !l.perIP.take(l.client(ip)) {
		return overPerIP
	}
	return accepted
}

// close uncounts a connection that open accepted, ip being the address
// counted by open or openIP (invalid if neither counted one).
func (l *connLimiter) close(ip netip.Addr) {
	if ip.IsValid() {
		l.perIP.put(l.client(ip))
	}
	l.total.Add(-1)
}
