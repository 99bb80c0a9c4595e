package engine

import (
	"hash/maphash"
	"net/netip"
	"sync"
)

// ipCounts counts something per client address up to a maximum: the
// open connections of an address (connLimiter) and its running upstream
// exchanges (clientSlots). An address's connections spread over every
// event loop (SO_REUSEPORT hashes the whole 4-tuple), so the count is
// shared: a map split into shards, each behind its own mutex.
type ipCounts struct {
	max    int
	seed   maphash.Seed
	shards [64]ipShard
}

type ipShard struct {
	mu sync.Mutex
	n  map[netip.Addr]int32
}

func (c *ipCounts) init(max int) {
	c.max = max
	c.seed = maphash.MakeSeed()
	for i := range c.shards {
		c.shards[i].n = make(map[netip.Addr]int32)
	}
}

func (c *ipCounts) shard(ip netip.Addr) *ipShard {
	b := ip.As16()
	return &c.shards[maphash.Bytes(c.seed, b[:])%uint64(len(c.shards))]
}

// take counts one for ip unless ip has max counted already.
func (c *ipCounts) take(ip netip.Addr) bool { return c.takeN(ip, 1) }

// takeN counts k for ip unless that would pass max.
func (c *ipCounts) takeN(ip netip.Addr, k int) bool {
	sh := c.shard(ip)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	n := sh.n[ip]
	if int(n)+k > c.max {
		return false
	}
	sh.n[ip] = n + int32(k)
	return true
}

// put gives back one that take counted.
func (c *ipCounts) put(ip netip.Addr) { c.putN(ip, 1) }

// putN gives back k that takeN counted.
func (c *ipCounts) putN(ip netip.Addr, k int) {
	sh := c.shard(ip)
	sh.mu.Lock()
	if n := sh.n[ip] - int32(k); n > 0 {
		sh.n[ip] = n
	} else {
		delete(sh.n, ip)
	}
	sh.mu.Unlock()
}

// counted returns how many addresses have a count, for tests.
func (c *ipCounts) counted() int {
	n := 0
	for i := range c.shards {
		c.shards[i].mu.Lock()
		n += len(c.shards[i].n)
		c.shards[i].mu.Unlock()
	}
	return n
}
