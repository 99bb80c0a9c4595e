package h2

import (
	"time"

	"golang.org/x/net/http2"
)

// This file holds SendTimeout: how an answer that waits for the client's
// window is bounded, whatever else the client sends.

// waitRoom waits (mu held) until st's pending body is under MaxPendingBytes,
// the stream ends, or SendTimeout passes without a byte of it going out,
// which resets the stream (ErrSendTimeout). A timer wakes the wait: the
// client may send nothing, or only frames that open no window.
func (c *Conn) waitRoom(st *Stream) error {
	c.locked()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for !st.reset && len(st.pending) > c.o.MaxPendingBytes {
		left := c.o.SendTimeout - time.Since(st.stalledAt)
		if !st.stalledAt.IsZero() && left <= 0 {
			c.sendTimedOut(st)
			return ErrSendTimeout
		}
		if st.stalledAt.IsZero() {
			left = c.o.SendTimeout
		}
		c.notReading()
		if timer == nil {
			// The timer takes mu, so its Broadcast cannot fall between
			// this check and Wait.
			timer = time.AfterFunc(left, func() {
				c.lock()
				c.room.Broadcast()
				c.unlock()
			})
		} else {
			timer.Reset(left)
		}
		c.wait()
	}
	return nil
}

// expireStalled resets each stream whose answer has waited SendTimeout
// for window without a byte going out (mu held): a local answer (a 404's
// body) has no writer waiting in waitRoom to notice. The reader calls it
// between frames, at most every SendTimeout/4. A client that sends no
// frame at all is closed by IdleTimeout instead.
func (c *Conn) expireStalled(now time.Time) {
	c.reading()
	c.locked()
	c.nextStallCheck = now.Add(max(c.o.SendTimeout/4, 10*time.Millisecond))
	if c.stalled == 0 {
		return
	}
	c.stalled = 0
	for _, st := range c.streams {
		if st.stalledAt.IsZero() || len(st.pending) == 0 && !st.endPending {
			continue
		}
		if now.Sub(st.stalledAt) >= c.o.SendTimeout {
			c.sendTimedOut(st)
			continue
		}
		c.stalled++
	}
}

// sendTimedOut resets st, whose answer the client's window held back for
// SendTimeout.
func (c *Conn) sendTimedOut(st *Stream) {
	c.locked()
	st.timedOut = true
	c.resetStream(st, http2.ErrCodeCancel)
	st.pending = st.pending[:0]
	c.room.Broadcast()
}
