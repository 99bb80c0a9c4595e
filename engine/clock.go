package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// clock is a coarse clock for deadlines: time.Now on every read would cost
// more than the rest of a small request, and deadlines only need the
// precision of the ticker that updates it.
type clock struct {
	ns atomic.Int64
	// src is the time the clock follows: time.Now, or a test's fake clock
	// (Options.Now), so that a test moves time rather than waits for it.
	src func() time.Time
	// mu makes tick's read of src and its stores one step: a tick that
	// read a fake clock before a test moved it would otherwise store the
	// old time after the test's own tick, setting the clock back.
	mu sync.Mutex
}

// init makes src (time.Now when nil) the clock's source and sets the
// clock and the Date line d from it.
func (c *clock) init(src func() time.Time, d *dateHeader) {
	if src == nil {
		src = time.Now
	}
	c.src = src
	c.tick(d) // the clock reads 0: a new second
}

// tick sets the clock from its source, and the Date line d when that
// starts a new second.
func (c *clock) tick(d *dateHeader) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.src()
	if t.Unix() != c.now()/int64(time.Second) {
		d.update(t)
	}
	c.ns.Store(t.UnixNano())
}

// set sets the clock to t, until the next tick.
func (c *clock) set(t time.Time) { c.ns.Store(t.UnixNano()) }

// now returns the time of the last tick, in Unix nanoseconds.
func (c *clock) now() int64 { return c.ns.Load() }

// fresh returns the time now, read rather than ticked, never before the
// last tick: for the start of a connection's idle time (its open, the
// end of its handshake), rare enough to pay for the read. On a loaded
// machine the ticker runs late, and a connection stamped with a stale
// tick was closed as idle long before its idle timeout (23 ms of 300 ms
// seen at load 4; 5 ms after a TLS handshake under -race).
func (c *clock) fresh() int64 { return max(c.now(), c.src().UnixNano()) }
