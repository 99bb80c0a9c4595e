package daemon

import (
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"time"

	"github.com/VictoriaMetrics/metrics"

	"github.com/redirectd/redirectd/internal/safego"
)

// idleCollector hands memory back to the OS once the process has gone
// quiet. Go collects when the heap has grown by GOGC since the last
// collection and keeps the freed pages mapped up to its heap goal, so a
// burst (TLS handshakes, forwards, a reload) leaves its garbage and its
// free pages in place as long as nothing allocates after it: an idle
// server holds them until the runtime's two-minute forced collection and
// the scavenger. With 2,000 idle TLS keep-alive connections that was about
// 15 of the 33 KiB each connection cost (benchmarks/README.md, "Memory per
// idle TLS connection").
//
// It reads the runtime's own counters (runtime/metrics, no stop of the
// world) every interval and collects only when both hold:
//   - quiet: less than quietAllocs were allocated during the last
//     interval, so a server under load is left to the collector's own
//     pacing (an answered redirect allocates nothing, so steady redirect
//     traffic reads as quiet, and leaves nothing to hand back either);
//   - worth it: garbage not yet collected plus free pages still mapped
//     come to at least max(minGarbage, a quarter of the live heap).
//     After a collection both are near zero, so it collects again only
//     once something has allocated: at most once per collection of the
//     runtime's own, or per minGarbage allocated (at the quiet rate, no
//     more than one every two seconds). With half the live heap and
//     16 MiB, 1,000 idle HTTP/2 connections' handshakes (about 16 MiB of
//     garbage beside 35 MiB live) stayed below the bar and cost 28-32
//     KiB each; a quarter and 4 MiB hands it back: 19-20 KiB
//     (benchmarks/README.md, "HTTP/2 against nginx and HAProxy").
type idleCollector struct {
	interval    time.Duration
	quietAllocs uint64
	minGarbage  uint64
	collections *metrics.Counter
	// collect is debug.FreeOSMemory: a collection, then every free page
	// handed back.
	collect func()
}

// The runtime/metrics the collector reads, in this order.
var idleSamples = []string{
	"/gc/heap/allocs:bytes",              // allocated since start
	"/gc/heap/live:bytes",                // live after the last collection
	"/memory/classes/heap/objects:bytes", // live and not yet collected
	"/memory/classes/heap/free:bytes",    // free pages, still mapped
}

func newIdleCollector(set *metrics.Set) *idleCollector {
	return &idleCollector{
		interval:    500 * time.Millisecond,
		quietAllocs: 1 << 20,
		minGarbage:  4 << 20,
		collections: set.NewCounter("redirectd_idle_collections_total"),
		collect:     debug.FreeOSMemory,
	}
}

// run checks every interval until stop is closed.
func (c *idleCollector) run(stop <-chan struct{}) {
	defer safego.Recover("idle collection")
	s := make([]rtmetrics.Sample, len(idleSamples))
	for i, name := range idleSamples {
		s[i].Name = name
	}
	rtmetrics.Read(s)
	last := s[0].Value.Uint64()
	every(c.interval, stop, func() {
		rtmetrics.Read(s)
		allocs := s[0].Value.Uint64()
		if c.due(allocs-last, s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()) {
			c.collect()
			c.collections.Inc()
			rtmetrics.Read(s) // the collection's own allocations are not traffic
			allocs = s[0].Value.Uint64()
		}
		last = allocs
	})
}

// due says whether to collect, given what was allocated during the last
// interval, the live heap after the last collection, the heap's objects
// now (live ones and garbage not yet collected), and its free pages.
func (c *idleCollector) due(allocated, live, objects, free uint64) bool {
	if allocated >= c.quietAllocs {
		return false
	}
	back := free
	if objects > live {
		back += objects - live
	}
	return back >= max(c.minGarbage, live/4)
}
