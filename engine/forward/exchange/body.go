package exchange

import (
	"errors"
	"io"
	"time"

	"github.com/panjf2000/gnet/v2"
)

// feed passes body bytes from the start of buf to the upstream; it runs on
// the loop and returns how many bytes it took. When the body channel is
// full, the chunk in hand is kept as pending and feed stops: the reader
// wakes the connection once it drains, and the next feed sends it first.
func (f *Forward) feed(buf []byte) int {
	if f.pending != nil {
		if !f.trySend(f.pending) {
			return 0
		}
		f.pending = nil
		// The time the upstream took nothing is not the client's.
		f.rateStart += f.conn.Now() - f.stallStart
		if f.pendingEnd {
			f.endBody()
			return 0
		}
	}
	used := 0
	for used < len(buf) && f.body != nil {
		var data []byte
		n, done := 0, false
		if f.tunnel {
			n = len(buf) - used
			data = buf[used:]
		} else if f.chunked != nil {
			d, m, fin, err := f.chunked.Next(buf[used:])
			if err != nil {
				f.Stop(400)
				return len(buf)
			}
			if m == 0 && !fin {
				break
			}
			data, n, done = d, m, fin
		} else {
			n = int(min(f.bodyLeft, int64(len(buf)-used)))
			data = buf[used : used+n]
			f.bodyLeft -= int64(n)
			done = f.bodyLeft == 0
		}
		used += n
		if len(data) > 0 {
			f.bodySeen += int64(len(data))
			if limit := f.g.MaxRequestBodyBytes; limit > 0 && f.bodySeen > limit && !f.tunnel {
				f.Stop(413)
				return len(buf)
			}
		}
		if f.buffering {
			data = f.hold(data)
			switch {
			case len(data) == 0 && done:
				f.endBody()
				f.startExchange() // the whole body is in hand
				continue
			case len(data) == 0:
				// Even a full buffer waits: a chunked body of just the
				// limit has its end still to come.
				continue
			}
			// A byte past the buffer: the exchange starts, and the rest
			// of the body follows as it comes, what did not fit first.
			f.startExchange()
		}
		if len(data) > 0 {
			chunk := append([]byte(nil), data...)
			if !f.trySend(chunk) {
				f.pending, f.pendingEnd = chunk, done
				f.stallStart = f.conn.Now()
				return used
			}
		}
		if done {
			f.endBody()
		}
	}
	return used
}

// hold appends to the buffered body what fits of data under
// request_buffer_bytes and returns the rest. The buffer grows as bytes
// come, never past the limit or the announced length: a client that
// announces a body and sends none costs nothing.
func (f *Forward) hold(data []byte) []byte {
	limit := f.g.RequestBufferBytes
	take := min(len(data), limit-len(f.buffered))
	if need := len(f.buffered) + take; need > cap(f.buffered) {
		size := min(max(2*cap(f.buffered), need, 512), limit)
		if f.chunked == nil {
			size = int(min(int64(size), int64(len(f.buffered)+take)+f.bodyLeft))
		}
		nb := make([]byte, len(f.buffered), size)
		copy(nb, f.buffered)
		f.buffered = nb
	}
	f.buffered = append(f.buffered, data[:take]...)
	f.moved.Store(f.conn.Now()) // body_timeout counts the client's pace
	return data[take:]
}

// trySend hands chunk to the upstream reader without blocking. On failure
// the forward is marked stalled, so the reader wakes the connection when
// it takes the next chunk.
func (f *Forward) trySend(chunk []byte) bool {
	select {
	case f.body <- chunk:
		f.moved.Store(f.conn.Now())
		return true
	default:
	}
	f.stalled.Store(true)
	select {
	case f.body <- chunk:
		f.stalled.Store(false)
		f.moved.Store(f.conn.Now())
		return true
	default:
		return false
	}
}

// endBody marks the body complete (on the loop).
func (f *Forward) endBody() {
	if f.body != nil {
		close(f.body)
		f.body = nil
		f.bodyDone.Store(true)
	}
}

// bodyReader is the request body as the fasthttp client reads it.
type bodyReader struct {
	f       *Forward
	ch      <-chan []byte
	pending []byte
}

var errAborted = errors.New("forwarding aborted")

func (b *bodyReader) Read(p []byte) (int, error) {
	if len(b.pending) == 0 {
		select {
		case chunk, ok := <-b.ch:
			if !ok {
				return 0, io.EOF
			}
			b.pending = chunk
			if b.f.stalled.Swap(false) {
				b.f.c.Wake(nil)
			}
		case <-b.f.abort:
			return 0, errAborted
		}
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// rateDeadline is when the body of an exchange that started before its
// body was whole must be whole: body_timeout after the exchange started,
// plus a second per body_min_rate bytes that came since, not counting the
// time the upstream took nothing. While a chunk is pending (the body
// channel is full), the bytes the client sends wait in the connection's
// buffer and are not counted in bodySeen: the upstream is the slow side,
// so that time moves the start on (feed adds it once the chunk goes).
func (f *Forward) rateDeadline(now int64) int64 {
	up := f.g
	seen, rate := f.bodySeen-f.rateSeen, up.BodyMinRate
	credit := seen/rate*int64(time.Second) + seen%rate*int64(time.Second)/rate
	start := f.rateStart
	if f.pending != nil {
		start += now - f.stallStart
	}
	return start + int64(up.BodyTimeout) + credit
}

// refuse answers status from the loop, when nothing of an answer has
// gone out, stops the exchange, and closes the connection after a
// lingering read (Conn.Refused), unread being the bytes buffered: the
// client may still be sending, and closing at once would reset the
// connection and destroy the answer. It does not wait for the exchange's
// goroutine, which may be blocked writing to an upstream that takes
// nothing (until write_timeout); the connection leaves it (refused), so
// its release leaves the connection to the lingering read. That goroutine
// writes no answer of its own: the exchange was not aborted before (the
// callers check), and a body not passed on whole makes the exchange fail
// once abort is closed, so it ends in finish.
func (f *Forward) refuse(c gnet.Conn, status int, msg string, unread int) gnet.Action {
	answered := f.sent.Load() == 0
	if answered {
		// Rare (a body too large or too slow), so the answer's buffer is
		// its own.
		b := f.conn.AppendText(nil, status, f.own, msg, f.head, f.http10, true)
		f.status.Store(int32(status))
		f.wrote(b)
		c.Write(b)
	}
	f.Stop(0)
	f.refused = true
	f.waitDrain = false
	return f.conn.Refused(c, status, unread, answered)
}
