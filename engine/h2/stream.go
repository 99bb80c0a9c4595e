package h2

import (
	"errors"
	"io"
	"time"

	"golang.org/x/net/http2"
)

// Handler answers the requests of a connection.
type Handler interface {
	// Serve is handed each request once its fields, and its body up to
	// Options.MaxBodyBytes, have come (at once, without the body, where a
	// HeadDecider says it is not needed). It runs on the connection's
	// goroutine, which reads nothing more until it returns, so it must
	// not wait: it answers at once (Stream.Answer) or hands the stream to
	// a goroutine that does, with Answer or AnswerHead and WriteData.
	// Either way the stream's last call ends it (Answer, end = true, or
	// Abort), and the stream is not to be touched after that.
	Serve(st *Stream)
}

// HeadDecider is a Handler that can tell from a request's head whether
// its answer depends on its body. A stream whose HEADERS do not end it
// is asked at once: one whose body is not needed (a redirect) is handed
// over without waiting for the body (HeadOnly), its answer sent, and the
// rest of the body read and dropped, nothing kept; one whose body is
// needed has it buffered, no byte of it coming for timeout (0: the
// Options' BodyTimeout) resetting the stream, as does its not being
// whole within timeout plus a second per minRate bytes received (0: no
// such bound), as the HTTP/1.1 path's body_min_rate. NeedsBody must
// decide as Serve will, and must have no effect of its own (no count,
// no log).
type HeadDecider interface {
	NeedsBody(st *Stream) (need bool, timeout time.Duration, minRate int64)
}

// BodyBudget is a Handler that bounds the bodies buffered for one client
// across all its connections: TakeBody reports whether n bytes more may
// be buffered (and counts them), PutBody gives back what TakeBody took.
// A stream whose body would pass it is handed over with BodyTooLarge,
// its body streamed (BodyReader) rather than buffered.
type BodyBudget interface {
	TakeBody(n int) bool
	PutBody(n int)
}

// Field is one request field; Name is lower case.
type Field struct{ Name, Value []byte }

// Stream is one request and the state of its stream. The request's
// fields are the handler's to read until the stream ends; they point into
// buffers the connection reuses for a later stream.
type Stream struct {
	c  *Conn
	id uint32

	// Method, Scheme, Authority and Path are the pseudo-header fields
	// (RFC 9113 8.3.1); Authority is nil when the client sent none.
	Method, Scheme, Authority, Path []byte
	// Fields are the other fields, in order, Cookie fields still split.
	Fields []Field
	// ContentLength is the content-length field, -1 without one; Body is
	// the request body as received.
	ContentLength int64
	Body          []byte
	// HeadersTooLarge: the field list was over MaxHeaderListSize, and
	// Fields holds only the first of them. BodyTooLarge: the body was
	// over MaxBodyBytes; the stream is handed over without waiting for
	// its end, and the rest is dropped.
	HeadersTooLarge, BodyTooLarge bool
	// HeadOnly: the handler's HeadDecider said the answer does not
	// depend on the body; the stream is handed over before it, and what
	// comes of it is dropped.
	HeadOnly bool

	// arena holds the bytes of the fields; offs their offsets until the
	// block ends.
	arena []byte
	offs  []fieldOff
	// The state below is guarded by c.mu. recvWindow is what the client
	// may send before the server opens more; received counts body bytes
	// (against ContentLength).
	recvWindow int64
	received   int64
	sendWindow int64
	// remoteEnded: the client has sent END_STREAM; localEnded: the
	// server has; removed: the stream is out of the open set; finished:
	// the handler made its last call; handed: Serve was called; sync:
	// Serve is running (an answer made then is flushed by the reader).
	remoteEnded, localEnded, removed, finished, handed, sync bool
	// streaming: the handler reads the body as it comes (BodyReader).
	// counted is what of Body counts in the connection's bodyBytes.
	streaming bool
	counted   int
	// budgeted is what of counted the BodyBudget took.
	budgeted int
	// bodyAt is when the body last made progress (its head, or a DATA
	// frame with bytes); bodyTimeout how long it may go without.
	// bodyStart is when its head came; minRate the mean rate it must
	// keep (0: none).
	bodyAt, bodyStart time.Time
	bodyTimeout       time.Duration
	minRate           int64
	// inBlock: a header block of the stream's is being decoded (its
	// trailers, or a refused HEADERS on it), which keeps it from reuse.
	inBlock bool
	// reset: the stream ended by RST_STREAM, either side's, or with the
	// connection; writes fail.
	reset bool
	// pending is answer body not yet sent for want of window; endPending
	// says END_STREAM follows it.
	pending    []byte
	endPending bool
	headSent   bool
	// stalledAt is when pending last went out in part or began to wait
	// (SendTimeout counts from it); zero while nothing waits.
	stalledAt time.Time
	// timedOut: the stream was reset for SendTimeout (its writes say so).
	timedOut bool
}

type fieldOff struct{ ns, ne, vs, ve int }

// ErrStreamClosed is returned by the writes of a stream the client reset,
// or whose connection closed; ErrSendTimeout by a write that waited
// SendTimeout for the client's window without a byte going out, which
// reset the stream.
var (
	ErrStreamClosed = errors.New("h2: the stream was reset or its connection closed")
	ErrSendTimeout  = errors.New("h2: the client's window let no byte of the answer out for send_timeout; the stream was reset")
)

// ID returns the stream's identifier.
func (st *Stream) ID() uint32 { return st.id }

// Answer sends the whole answer, given as the HTTP/1.1 bytes of its head
// and body (a status line, fields, an empty line, the body), as HEADERS
// and DATA, ending the stream. What the peer's window cannot take yet is
// kept and sent as it opens. answer may be reused once Answer returns.
func (st *Stream) Answer(answer []byte) {
	c := st.c
	st.live() // before mu: a failed check leaves it free
	c.lock()
	defer c.flushAfter(st)
	if !st.reset {
		// A body-less answer (a redirect) is one HEADERS frame with
		// END_STREAM.
		body, ok := c.writeHead(st, answer, len(answer) == headEnd(answer))
		if !ok {
			// Not an HTTP/1.1 head of a final answer: a defect of the
			// caller's, never sent as it is.
			body, _ = c.writeHead(st, []byte("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"), true)
		}
		if len(body) == 0 {
			c.ended(st)
		} else {
			st.pending = append(st.pending[:0], body...)
			st.endPending = true
			c.sendPending(st)
		}
	}
	st.finished = true
	c.release(st)
}

// AnswerHead sends the head of an answer (its HTTP/1.1 status line and
// fields, with the empty line), for WriteData to send the body; end says
// the answer has none, which ends the stream.
func (st *Stream) AnswerHead(head []byte, end bool) error {
	c := st.c
	st.live() // before mu: a failed check leaves it free
	c.lock()
	defer c.flushAfter(st)
	if st.reset {
		if end {
			st.finished = true
			c.release(st)
		}
		return ErrStreamClosed
	}
	if _, ok := c.writeHead(st, head, end); !ok {
		return errors.New("h2: an answer head that is not HTTP/1.1")
	}
	if end {
		c.ended(st)
		st.finished = true
		c.release(st)
	}
	return nil
}

// WriteData sends p as the answer's body, after AnswerHead; end ends the
// stream. It waits while more than MaxPendingBytes wait for the peer's
// window: the peer's flow control holds back the writer.
func (st *Stream) WriteData(p []byte, end bool) error {
	c := st.c
	st.live() // before mu: a failed check leaves it free
	c.lock()
	defer c.flushAfter(st)
	if err := c.waitRoom(st); err != nil {
		if end {
			st.finished = true
			c.release(st)
		}
		return err
	}
	if st.reset {
		if end {
			st.finished = true
			c.release(st)
		}
		if st.timedOut {
			return ErrSendTimeout
		}
		return ErrStreamClosed
	}
	st.pending = append(st.pending, p...)
	st.endPending = end
	c.sendPending(st)
	if end {
		st.finished = true
		c.release(st)
	}
	return nil
}

// Abort ends a stream whose answer cannot be completed (the upstream
// failed after the head was sent) with RST_STREAM INTERNAL_ERROR.
func (st *Stream) Abort() {
	c := st.c
	st.live() // before mu: a failed check leaves it free
	c.lock()
	defer c.flushAfter(st)
	if !st.reset {
		c.resetStream(st, http2.ErrCodeInternal)
	}
	st.finished = true
	c.release(st)
}

// Errors of a body read with BodyReader.
var (
	ErrBodyTimeout  = errors.New("h2: no byte of the request body came in time")
	ErrBodyTooLarge = errors.New("h2: the request body is larger than allowed")
)

// BodyReader returns the body of a stream handed over with BodyTooLarge
// as it comes: what was buffered, then the DATA frames still to come,
// the client let send more (WINDOW_UPDATE) as it is read, so that what
// waits is bounded by the stream's window. A read waits at most idle for
// a byte (ErrBodyTimeout); past max bytes in all (0: no bound) it fails
// with ErrBodyTooLarge; a reset stream reads ErrStreamClosed. It must be
// called from Handler.Serve, before Serve returns.
func (st *Stream) BodyReader(idle time.Duration, max int64) io.Reader {
	c := st.c
	c.reading() // from Handler.Serve
	c.lock()
	st.streaming = true
	c.uncount(st) // bounded by the window from now on
	c.unlock()
	return &bodyReader{st: st, idle: idle, max: max}
}

type bodyReader struct {
	st        *Stream
	idle      time.Duration
	max, read int64
}

func (r *bodyReader) Read(p []byte) (int, error) {
	st := r.st
	c := st.c
	c.lock()
	defer c.unlock()
	timedOut := false
	var t *time.Timer
	for len(st.Body) == 0 && !st.remoteEnded && !st.reset && !timedOut {
		c.notReading()
		if t == nil {
			t = time.AfterFunc(r.idle, func() {
				c.lock()
				timedOut = true
				c.room.Broadcast()
				c.unlock()
			})
			defer t.Stop()
		}
		c.wait()
	}
	switch {
	case st.reset:
		return 0, ErrStreamClosed
	case len(st.Body) > 0:
		n := copy(p, st.Body)
		st.Body = st.Body[:copy(st.Body, st.Body[n:])]
		if r.read += int64(n); r.max > 0 && r.read > r.max {
			return 0, ErrBodyTooLarge
		}
		if !st.remoteEnded {
			c.fr.WriteWindowUpdate(st.id, uint32(n))
			st.recvWindow += int64(n)
			c.out().Flush()
		}
		return n, nil
	case timedOut:
		return 0, ErrBodyTimeout
	}
	return 0, io.EOF
}

// reuse readies st for the stream id.
func (st *Stream) reuse(c *Conn, id uint32) {
	*st = Stream{c: c, id: id, ContentLength: -1, arena: st.arena[:0], offs: st.offs[:0],
		Fields: st.Fields[:0], Body: st.Body[:0], pending: st.pending[:0]}
	st.recvWindow = int64(c.o.StreamWindow)
	st.sendWindow = int64(c.peerWindow)
}

// fill points the request's fields into the arena, once the block is
// whole.
func (st *Stream) fill(m, s, a, p fieldOff, has [4]bool) {
	b := st.arena
	get := func(o fieldOff) []byte { return b[o.vs:o.ve:o.ve] }
	if has[0] {
		st.Method = get(m)
	}
	if has[1] {
		st.Scheme = get(s)
	}
	if has[2] {
		st.Authority = get(a)
	}
	if has[3] {
		st.Path = get(p)
	}
	for _, o := range st.offs {
		st.Fields = append(st.Fields, Field{Name: b[o.ns:o.ne:o.ne], Value: b[o.vs:o.ve:o.ve]})
	}
}
