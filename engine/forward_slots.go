package engine

import "net/netip"

// clientSlots counts, per client address, the forwarded requests whose
// exchange with an upstream is running (waiting for a pooled connection,
// sending the body, relaying the answer), so that one client cannot hold
// the whole pool: max_conns_per_client. The connections of one client
// spread over every event loop, so the count is shared, in shards behind
// their own mutex. It is taken and given back by the forward's goroutine,
// never on an event loop (forward.run). The count is ipCounts'.
type clientSlots struct{ counts ipCounts }

func (cs *clientSlots) init(max int) { cs.counts.init(max) }

// take counts one exchange for ip unless ip has max running; an unknown
// address (invalid) is never refused. ip is the client as the connection
// limiter counts it (connLimiter.client: an IPv6 address by its prefix).
func (cs *clientSlots) take(ip netip.Addr) bool {
	return !ip.IsValid() || cs.counts.take(ip)
}

// put gives back a slot that take counted.
func (cs *clientSlots) put(ip netip.Addr) {
	if ip.IsValid() {
		cs.counts.put(ip)
	}
}
