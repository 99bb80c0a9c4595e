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
