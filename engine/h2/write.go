package h2

import (
	"time"

	"golang.org/x/net/http2"
)

// The writes below are made with c.mu held.

// writeHead sends the HEADERS (and CONTINUATION) of the answer whose
// HTTP/1.1 bytes start answer, and returns the bytes after the head (the
// body). end sets END_STREAM on the block; ok is false when answer has no
// head.
func (c *Conn) writeHead(st *Stream, answer []byte, end bool) (body []byte, ok bool) {
	c.locked()
	block, _, headLen, ok := appendBlock(c.block[:0], answer)
	c.block = block
	if !ok {
		return nil, false
	}
	st.headSent = true
	max := int(c.peerFrame)
	first := block
	if len(first) > max {
		first = first[:max]
	}
	var flags http2.Flags
	if end {
		flags |= http2.FlagHeadersEndStream
	}
	if len(first) == len(block) {
		flags |= http2.FlagHeadersEndHeaders
	}
	c.writeFrame(http2.FrameHeaders, flags, st.id, first)
	for rest := block[len(first):]; len(rest) > 0; {
		n := min(len(rest), max)
		flags = 0
		if n == len(rest) {
			flags = http2.FlagContinuationEndHeaders
		}
		c.writeFrame(http2.FrameContinuation, flags, st.id, rest[:n])
		rest = rest[n:]
	}
	return answer[headLen:], true
}

// writeFrame writes a frame straight into the write buffer: the
// Framer's own writes copy the payload into a buffer of its own, which
// would keep the size of the largest DATA frame sent for the
// connection's life.
func (c *Conn) writeFrame(t http2.FrameType, flags http2.Flags, id uint32, p []byte) {
	c.locked()
	w := c.out()
	n := len(p)
	// c.hdr, not a local array: Write may hand it to the connection, so
	// a local would escape, one allocation per frame.
	c.hdr = [frameHeaderLen]byte{byte(n >> 16), byte(n >> 8), byte(n), byte(t), byte(flags),
		byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}
	w.Write(c.hdr[:])
	w.Write(p)
}

func (c *Conn) writeData(id uint32, end bool, p []byte) {
	var flags http2.Flags
	if end {
		flags = http2.FlagDataEndStream
	}
	c.writeFrame(http2.FrameData, flags, id, p)
}

// sendPending sends what the windows allow of st's pending body, and
// END_STREAM after it when it is due.
func (c *Conn) sendPending(st *Stream) {
	c.locked()
	if st.reset || st.localEnded {
		return
	}
	sent := 0
	for sent < len(st.pending) {
		n := min(int64(len(st.pending)-sent), c.sendWindow, st.sendWindow, int64(c.peerFrame))
		if n <= 0 {
			break
		}
		end := st.endPending && sent+int(n) == len(st.pending)
		c.writeData(st.id, end, st.pending[sent:sent+int(n)])
		c.sendWindow -= n
		st.sendWindow -= n
		sent += int(n)
		if end {
			st.pending = st.pending[:0]
			c.ended(st)
			return
		}
	}
	if sent > 0 {
		st.pending = st.pending[:copy(st.pending, st.pending[sent:])]
		c.room.Broadcast()
		st.stalledAt = time.Time{}
	}
	if len(st.pending) > 0 && st.stalledAt.IsZero() {
		st.stalledAt = time.Now()
		c.stalled++
	}
	if len(st.pending) == 0 && st.endPending {
		c.writeData(st.id, true, nil)
		c.ended(st)
	}
}

// sendAll sends what it can of every stream's pending body, after a
// window opened.
func (c *Conn) sendAll() {
	c.locked()
	for _, st := range c.streams {
		if len(st.pending) > 0 || st.endPending {
			c.sendPending(st)
		}
	}
	c.room.Broadcast()
}

// ended notes that the server sent END_STREAM on st. A client still
// sending (the answer came before its body's end) is told to stop with
// RST_STREAM NO_ERROR (RFC 9113 8.1).
//
// A stream answered from its head (HeadOnly) stays open instead, half
// closed, its body read and dropped (discard.go), so that the client's
// frames on it keep their meaning (a content-length the DATA does not
// match is still a stream error).
func (c *Conn) ended(st *Stream) {
	c.locked()
	st.localEnded = true
	if !st.remoteEnded {
		if st.HeadOnly && !st.streaming {
			return
		}
		c.resetStream(st, http2.ErrCodeNo)
		return
	}
	c.remove(st)
}

// resetStream sends RST_STREAM code for st and closes it; a stream the
// client was still sending on is remembered, so that its DATA in flight
// is dropped rather than answered with another reset (RFC 9113 5.1).
func (c *Conn) resetStream(st *Stream, code http2.ErrCode) {
	c.locked()
	c.fr.WriteRSTStream(st.id, code)
	if !st.remoteEnded {
		c.noteReset(st.id)
	}
	st.reset = true
	c.remove(st)
}

// remove takes st out of the open streams; release then recycles it once
// its handler is done with it.
func (c *Conn) remove(st *Stream) {
	c.locked()
	if st.removed {
		return
	}
	st.removed = true
	delete(c.streams, st.id)
	if len(c.streams) == 0 {
		c.lastActive = time.Now() // not c.now: remove runs on a forward's goroutine too
	}
	c.room.Broadcast()
	c.release(st)
}

// release puts st back for reuse once it is out of the open set and its
// handler, if it was handed one, is done.
func (c *Conn) release(st *Stream) {
	c.locked()
	if !st.removed || st.handed && !st.finished || st.inBlock {
		return
	}
	c.uncount(st)
	st.Body = st.Body[:0]
	if len(c.free) < int(c.o.MaxConcurrentStreams) && cap(st.arena)+cap(st.Body)+cap(st.pending) <= c.o.MaxKeptStreamBytes {
		c.free = append(c.free, st)
	}
}

// newStream returns a Stream for id, reused where one is free.
func (c *Conn) newStream(id uint32) *Stream {
	c.reading()
	c.locked()
	var st *Stream
	if n := len(c.free); n > 0 {
		st = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		st = new(Stream)
	}
	st.reuse(c, id)
	return st
}
