package engine

import (
	"errors"
	"io"

	"github.com/panjf2000/gnet/v2"
)

// feed passes body bytes from the start of buf to the upstream; it runs on
// the loop and returns how many bytes it took. When the body channel is
// full, the chunk in hand is kept as pending and feed stops: the reader
// wakes the connection once it drains, and the next feed sends it first.
func (f *forward) feed(buf []byte) int {
	if f.pending != nil {
		if !f.trySend(f.pending) {
			return 0
		}
		f.pending = nil
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
				f.stop(400)
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
			if limit := f.s.up.MaxRequestBodyBytes; limit > 0 && f.bodySeen > limit && !f.tunnel {
				f.stop(413)
				return len(buf)
			}
			chunk := append([]byte(nil), data...)
			if !f.trySend(chunk) {
				f.pending, f.pendingEnd = chunk, done
				return used
			}
		}
		if done {
			f.endBody()
		}
	}
	return used
}

// trySend hands chunk to the upstream reader without blocking. On failure
// the forward is marked stalled, so the reader wakes the connection when
// it takes the next chunk.
func (f *forward) trySend(chunk []byte) bool {
	select {
	case f.body <- chunk:
		return true
	default:
	}
	f.stalled.Store(true)
	select {
	case f.body <- chunk:
		f.stalled.Store(false)
		return true
	default:
		return false
	}
}

// endBody marks the body complete (on the loop).
func (f *forward) endBody() {
	if f.body != nil {
		close(f.body)
		f.body = nil
		f.bodyDone.Store(true)
	}
}

// bodyReader is the request body as the fasthttp client reads it.
type bodyReader struct {
	f       *forward
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

// maxPendingWhileForwarding bounds what a client may send while its
// forwarded request is answered: the next pipelined requests wait in the
// connection's buffer, and gnet cannot stop reading.
const maxPendingWhileForwarding = 1 << 20

// whileForwarding handles bytes that arrive while a request is forwarded:
// body bytes go to the upstream, later requests wait in the buffer.
func (cs *conn) whileForwarding(c gnet.Conn, buf []byte) gnet.Action {
	f := cs.fwd
	if f.body != nil {
		if n := f.feed(buf); n > 0 {
			c.Discard(n)
			buf = buf[n:]
		}
		if f.pending != nil {
			return gnet.None // the reader wakes the connection when it drains
		}
	}
	if len(buf) > maxPendingWhileForwarding {
		f.stop(0)
		return gnet.Close
	}
	return gnet.None
}

// checkForward runs from the deadline sweep for a connection whose request
// is being forwarded: it resumes an answer waiting for the client to read,
// closes a client that reads nothing of it for send_timeout, and gives up
// on a request body that stopped coming.
func (cs *conn) checkForward(now int64) {
	f, up := cs.fwd, cs.loop.srv.up
	if w := cs.waitDrain; w != nil {
		switch out := cs.c.OutboundBuffered(); {
		case out <= maxOutboundFwd:
			cs.waitDrain = nil
			w.drained <- struct{}{}
		case out < w.outLast:
			w.outLast, w.outSince = out, now // the client took some
		case now-w.outSince >= int64(up.SendTimeout):
			// Closing stops the exchange (OnClose), which frees the
			// upstream connection.
			cs.loop.srv.m.timeouts.send.Inc()
			cs.close()
			return
		}
	}
	if f.body != nil && !f.tunnel && now-cs.active >= int64(up.BodyTimeout) {
		cs.loop.srv.m.timeouts.body.Inc()
		f.stop(408)
	}
}
