package h2

import (
	"time"

	"golang.org/x/net/http2"
)

// This file holds what bounds a request body before its answer: the
// decision from the head (HeadDecider), the body's deadline, the bytes a
// connection and a client may buffer, and the DATA still in flight on a
// stream the server reset.

// headDecide asks the handler, for a request whose HEADERS did not end
// its stream, whether its answer needs the body (mu held on entry and
// exit, released meanwhile), and starts the body's deadline.
func (c *Conn) headDecide(st *Stream) {
	c.reading()
	c.locked()
	st.bodyTimeout = c.o.BodyTimeout
	if hd, ok := c.h.(HeadDecider); ok {
		c.unlock()
		need, timeout, minRate := hd.NeedsBody(st)
		c.lock()
		switch {
		case !need:
			st.HeadOnly = true
		case timeout > 0:
			st.bodyTimeout = timeout
		}
		st.minRate = minRate
	}
	st.bodyStart = c.now
	c.watchBody(st)
}

// watchBody starts st's body deadline (mu held).
func (c *Conn) watchBody(st *Stream) {
	c.reading()
	c.locked()
	st.bodyAt = c.now
	c.bodyWaiting++
	if t := c.now.Add(checkEvery(st.bodyTimeout)); c.nextBodyCheck.IsZero() || t.Before(c.nextBodyCheck) {
		c.nextBodyCheck = t
	}
}

// checkEvery is how often a deadline d is looked at: it fires between d
// and 1.25 d.
func checkEvery(d time.Duration) time.Duration { return max(d/4, 10*time.Millisecond) }

// waitsBody reports whether st's body is bounded by its deadline here:
// it is being buffered, or dropped after an answer from the head. A
// streamed body's reader has its own (BodyReader).
func (st *Stream) waitsBody() bool {
	if st.remoteEnded || st.removed || st.streaming {
		return false
	}
	return !st.handed || st.HeadOnly
}

// expireBodies resets each stream whose body made no progress for its
// deadline (mu held). The reader calls it between frames and when a
// read waits past nextBodyCheck, so frames that carry no body (PING,
// SETTINGS, PRIORITY) do not extend it. A body being buffered is reset
// with CANCEL, dropping what was buffered; one dropped after its answer
// with NO_ERROR (RFC 9113 8.1).
func (c *Conn) expireBodies(now time.Time) {
	c.reading()
	c.locked()
	c.bodyWaiting = 0
	c.nextBodyCheck = time.Time{}
	for _, st := range c.streams {
		if !st.waitsBody() {
			continue
		}
		if st.late(now) {
			switch {
			case !st.handed:
				c.resetStream(st, http2.ErrCodeCancel)
				continue
			case st.localEnded:
				c.resetStream(st, http2.ErrCodeNo)
				continue
			}
			// The answer from the head still waits for the client's
			// window: SendTimeout bounds it.
		}
		c.bodyWaiting++
		if t := now.Add(checkEvery(st.bodyTimeout)); c.nextBodyCheck.IsZero() || t.Before(c.nextBodyCheck) {
			c.nextBodyCheck = t
		}
	}
}

// late reports whether st's body has passed its deadline at now: no
// byte for bodyTimeout, or, while it is buffered, not whole within
// bodyTimeout plus a second per minRate bytes received.
func (st *Stream) late(now time.Time) bool {
	if now.Sub(st.bodyAt) >= st.bodyTimeout {
		return true
	}
	if st.minRate <= 0 || st.handed {
		return false
	}
	credit := time.Duration(st.received * int64(time.Second) / st.minRate)
	return now.Sub(st.bodyStart) >= st.bodyTimeout+credit
}

// dropData takes a DATA frame's bytes on a stream answered from its head
// (mu held): nothing is kept. Once the client has spent half its window
// the stream is reset with NO_ERROR rather than given more: the body
// costs at most one window to drop.
func (c *Conn) dropData(st *Stream, end bool) {
	c.locked()
	if !end && st.localEnded && st.recvWindow < int64(c.o.StreamWindow)/2 {
		c.resetStream(st, http2.ErrCodeNo)
	}
}

// bufferData adds data to the body buffered for st (mu held), unless it
// passes the stream's, the connection's or the client's bound: the
// stream is then handed over with BodyTooLarge, its body streamed.
func (c *Conn) bufferData(st *Stream, data []byte) {
	c.locked()
	n := len(data)
	switch {
	case len(st.Body)+n > c.o.MaxBodyBytes || c.bodyBytes+n > c.o.MaxConnBodyBytes:
		st.BodyTooLarge = true
	default:
		if b, ok := c.h.(BodyBudget); ok {
			if !b.TakeBody(n) {
				st.BodyTooLarge = true
				break
			}
			st.budgeted += n
		}
	}
	if !st.BodyTooLarge && st.recvWindow < int64(c.o.StreamWindow)/2 {
		inc := int64(c.o.StreamWindow) - st.recvWindow
		c.fr.WriteWindowUpdate(st.id, uint32(inc))
		st.recvWindow += inc
	}
	st.Body = append(st.Body, data...) // kept: the handler may stream the rest (BodyReader)
	st.counted += n
	c.bodyBytes += n
}

// uncount takes st's buffered body out of the connection's and the
// client's counts (mu held).
func (c *Conn) uncount(st *Stream) {
	c.locked()
	c.bodyBytes -= st.counted
	st.counted = 0
	if st.budgeted > 0 {
		if b, ok := c.h.(BodyBudget); ok {
			b.PutBody(st.budgeted)
		}
		st.budgeted = 0
	}
}

// noteReset remembers that the server reset stream id while the client
// may still be sending on it (mu held).
func (c *Conn) noteReset(id uint32) {
	c.locked()
	c.sentResets[c.sentNext%uint32(len(c.sentResets))] = id
	c.sentNext++
}

// wasReset reports whether the server reset stream id lately (mu held):
// DATA on it is dropped (RFC 9113 5.1: frames on a stream after sending
// RST_STREAM must be ignored), not answered with STREAM_CLOSED.
func (c *Conn) wasReset(id uint32) bool {
	c.locked()
	for _, r := range c.sentResets {
		if r == id {
			return true
		}
	}
	return false
}
