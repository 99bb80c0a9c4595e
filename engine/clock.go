package engine

import (
	"sync/atomic"
	"time"
)

// clock is a coarse clock for deadlines: time.Now on every read would cost
// more than the rest of a small request, and deadlines only need the
// precision of the ticker that updates it.
type clock struct{ ns atomic.Int64 }

func (c *clock) set(t time.Time) { c.ns.Store(t.UnixNano()) }

// now returns the time of the last tick, in Unix nanoseconds.
func (c *clock) now() int64 { return c.ns.Load() }

// fresh returns the time now, read rather than ticked, never before the
// last tick: for the start of a connection's idle time (its open, the
// end of its handshake), rare enough to pay for the read. On a loaded
// machine the ticker runs late, and a connection stamped with a stale
// tick was closed as idle long before its idle timeout (23 ms of 300 ms
// seen at load 4; 5 ms after a TLS handshake under -race).
func (c *clock) fresh() int64 { return max(c.now(), time.Now().UnixNano()) }
