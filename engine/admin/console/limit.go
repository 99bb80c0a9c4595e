package console

import (
	"net"
	"net/netip"
	"sync"
	"time"

	xrate "golang.org/x/time/rate"
)

// Failed sign-ins are limited per client network (an IPv4 address, an
// IPv6 /64, which one host is commonly given): a burst of 20, then 2 a
// second. A token guessed online at that rate gets nowhere, a person who
// mistyped waits at most a second, and a stranger's wrong tokens never
// refuse anyone else's right one: a client that has not failed has no
// bucket and is never limited. Behind a proxy that hides the client's
// address, every client shares the proxy's bucket.
const (
	failBurst = 20
	failRate  = 2 // per second
	// maxFailClients bounds the buckets kept. Full buckets are dropped
	// first (one is the same as none); past that, the failures of new
	// networks share one overflow bucket, so a flood from many addresses
	// costs bounded memory and limits only the failing.
	maxFailClients = 10_000
)

// failLimits holds a token bucket (golang.org/x/time/rate's) for each
// client network that failed to sign in lately.
type failLimits struct {
	mu       sync.Mutex
	by       map[netip.Prefix]*xrate.Limiter
	overflow *xrate.Limiter
}

// allow reports whether the client at remoteAddr (http.Request's
// RemoteAddr) may try a sign-in at now: false while its failures have
// used up its bucket.
func (l *failLimits) allow(remoteAddr string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.by[failKey(remoteAddr)]
	if b == nil {
		return true
	}
	return b.TokensAt(now) >= 1
}

// failed takes one token of the client at remoteAddr for a failed
// sign-in.
func (l *failLimits) failed(remoteAddr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := failKey(remoteAddr)
	b := l.by[key]
	if b == nil {
		b = l.add(key, now)
	}
	b.AllowN(now, 1) // none left: the bucket stays empty
}

// add makes key's bucket, full, or hands out the overflow bucket when
// maxFailClients networks are failing at once.
func (l *failLimits) add(key netip.Prefix, now time.Time) *xrate.Limiter {
	if l.by == nil {
		l.by = map[netip.Prefix]*xrate.Limiter{}
	}
	if len(l.by) >= maxFailClients {
		for k, b := range l.by {
			if b.TokensAt(now) >= failBurst {
				delete(l.by, k)
			}
		}
	}
	if len(l.by) >= maxFailClients {
		if l.overflow == nil {
			l.overflow = newFailBucket()
		}
		return l.overflow
	}
	b := newFailBucket()
	l.by[key] = b
	return b
}

// newFailBucket is a client network's bucket, full.
func newFailBucket() *xrate.Limiter { return xrate.NewLimiter(failRate, failBurst) }

// failKey is the network remoteAddr's failures are counted for; an
// address that does not parse counts as the zero prefix, one network.
func failKey(remoteAddr string) netip.Prefix {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	a = a.Unmap()
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, _ := a.WithZone("").Prefix(bits)
	return p
}
