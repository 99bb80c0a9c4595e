package engine

import (
	"hash/maphash"
	"net/netip"
	"sync"
)

// clientSlots counts, per client address, the forwarded requests whose
// exchange with an upstream is running (waiting for a pooled connection,
// sending the body, relaying the answer), so that one client cannot hold
// the whole pool: max_conns_per_client. The connections of one client
// spread over every event loop, so the count is shared, in shards behind
// their own mutex. It is taken and given back by the forward's goroutine,
// never on an event loop (forward.run).
type clientSlots struct {
	max    int
	seed   maphash.Seed
	shards [64]slotShard
}

type slotShard struct {
	mu sync.Mutex
	n  map[netip.Addr]int32
}

func (cs *clientSlots) init(max int) {
	cs.max = max
	cs.seed = maphash.MakeSeed()
	for i := range cs.shards {
		cs.shards[i].n = make(map[netip.Addr]int32)
	}
}

func (cs *clientSlots) shard(ip netip.Addr) *slotShard {
	b := ip.As16()
	return &cs.shards[maphash.Bytes(cs.seed, b[:])%uint64(len(cs.shards))]
}

// take counts one exchange for ip unless ip has max running; an unknown
// address (invalid) is never refused. ip is the client as the connection
// limiter counts it (connLimiter.client: an IPv6 address by its prefix).
func (cs *clientSlots) take(ip netip.Addr) bool {
	if !ip.IsValid() {
		return true
	}
	sh := cs.shard(ip)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	n := sh.n[ip]
	if int(n) >= cs.max {
		return false
	}
	sh.n[ip] = n + 1
	return true
}

// put gives back a slot that take counted.
func (cs *clientSlots) put(ip netip.Addr) {
	if !ip.IsValid() {
		return
	}
	sh := cs.shard(ip)
	sh.mu.Lock()
	if n := sh.n[ip] - 1; n > 0 {
		sh.n[ip] = n
	} else {
		delete(sh.n, ip)
	}
	sh.mu.Unlock()
}
