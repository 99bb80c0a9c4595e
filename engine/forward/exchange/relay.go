package exchange

import (
	"io"
	"iter"
	"strconv"
	"sync"

	"github.com/panjf2000/gnet/v2"
	"github.com/valyala/fasthttp"

	fw "github.com/redirectd/redirectd/engine/forward"
)

// relay writes the upstream's answer to the client: its head, then its
// body streamed in chunks, re-framed for the client.
func (f *Forward) relay(resp *fasthttp.Response) {
	code, msg := f.upstreamStatus(resp)
	length := resp.Header.ContentLength()
	head, chunkedOut, noBody := f.answerHead(code, msg, resp.Header.All(), length)
	stream := resp.BodyStream()
	if noBody || stream == nil {
		if !noBody {
			head = append(head, resp.Body()...)
		}
		if stream != nil {
			resp.CloseBodyStream() // before the write: see relayBody
		}
		f.counted(true)
		f.writeLast(head)
		return
	}
	f.relayBody(head, stream, streamCloser{resp}, length, chunkedOut)
}

// upstreamStatus is the status and text the client gets for resp: the
// upstream's, or the error page's status that sent the request there.
func (f *Forward) upstreamStatus(resp *fasthttp.Response) (int, []byte) {
	if f.pageStatus != 0 {
		return f.pageStatus, nil
	}
	return resp.StatusCode(), resp.Header.StatusMessage()
}

// streamCloser closes a fasthttp answer's body stream, which gives its
// connection back to the pool.
type streamCloser struct{ resp *fasthttp.Response }

func (s streamCloser) Close() error { return s.resp.CloseBodyStream() }

// answerHead builds the head of an upstream answer for the client: its
// status (msg, or the standard text when empty), its fields less the
// hop-by-hop ones, and its framing: Content-Length when length (the
// upstream's, -1 or less when it has none) is known, else chunked, or
// the end of the connection for an HTTP/1.0 client. noBody says the
// answer has no body whatever its fields say; chunkedOut, that the body
// must be sent chunked. It records the status for the access log.
func (f *Forward) answerHead(code int, msg []byte, fields iter.Seq2[[]byte, []byte], length int) (head []byte, chunkedOut, noBody bool) {
	f.status.Store(int32(code))
	noBody = f.head || code == 204 || code == 304 || code < 200
	head = make([]byte, 0, 512)
	head = fw.AppendStatusLine(head, code, msg)
	head = f.appendAnswerFields(head, fields, false)
	switch {
	case length >= 0:
		head = append(strconv.AppendInt(append(head, "Content-Length: "...), int64(length), 10), "\r\n"...)
	case noBody:
	case f.http10:
		f.closing = true // the end of the body is the end of the connection
	default:
		chunkedOut = true
		head = append(head, "Transfer-Encoding: chunked\r\n"...)
	}
	head = appendConnection(head, f.http10, f.closing)
	return append(head, "\r\n"...), chunkedOut, noBody
}

// appendConnection appends the Connection field of an answer to an
// HTTP/1.x client (http10: 1.0) after which the server closes or not:
// none when an HTTP/1.1 connection stays open.
func appendConnection(dst []byte, http10, closing bool) []byte {
	switch {
	case closing:
		return append(dst, "Connection: close\r\n"...)
	case http10:
		return append(dst, "Connection: keep-alive\r\n"...)
	}
	return dst
}

// appendAnswerFields applies the header policy of every relayed answer
// (forward.AppendAnswerFields) for f's client: the server's own fields,
// the TLS port's Strict-Transport-Security replacing the upstream's, the
// failed conditions' Vary. upgrade: the answer is a tunnel's 101.
func (f *Forward) appendAnswerFields(head []byte, fields iter.Seq2[[]byte, []byte], upgrade bool) []byte {
	return fw.AppendAnswerFields(head, fields, upgrade, &fw.Answer{Own: f.own, OwnHSTS: f.ownHSTS,
		Vary: f.vary, Dropped: f.m.FieldsDropped})
}

// relayBody writes head, then the body read from stream, re-framed as
// answerHead decided, and hands the connection back to the loop. It
// closes the stream with closer before the answer's last write, so that
// the upstream connection is back in the pool before the client, having
// its answer, sends the next request (which took a new connection else).
func (f *Forward) relayBody(head []byte, stream io.Reader, closer io.Closer, length int, chunkedOut bool) {
	closed := false
	closeStream := func() {
		if !closed {
			closed = true
			closer.Close()
		}
	}
	defer closeStream()
	defer f.counted(true) // whole, or the client went: what is not cut short
	if length >= 0 && length <= answerChunk {
		// A small answer of known length goes out with its head in one
		// write: one trip through the loop instead of two. Cut short,
		// nothing of it has gone: the client gets 502, not an empty
		// reply.
		out := append(head, make([]byte, length)...)
		if _, err := io.ReadFull(stream, out[len(head):]); err != nil {
			closeStream()
			f.cutShort(err, true)
			f.answerError(502, msgCutShort)
			return
		}
		closeStream()
		f.counted(true)
		f.writeLast(out)
		return
	}
	if !f.write(head) {
		return
	}
	// write waits until gnet has taken the bytes (written or copied to its
	// outbound buffer), so one buffer serves every chunk.
	bufp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bufp)
	buf := *bufp
	for {
		off := 0
		if chunkedOut {
			off = 10 // room for the chunk-size line
		}
		n, err := stream.Read(buf[off : off+answerChunk])
		if n > 0 {
			out := buf[off : off+n]
			if chunkedOut {
				var size [10]byte
				line := append(strconv.AppendInt(size[:0], int64(n), 16), "\r\n"...)
				start := off - len(line)
				copy(buf[start:], line)
				out = append(buf[start:off+n], "\r\n"...)
			}
			if !f.write(out) {
				return
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			// The upstream died mid-answer: close, so the client never
			// takes a truncated answer for a whole one (as nginx does).
			closeStream()
			f.cutShort(err, false)
			f.finish(true)
			return
		}
	}
	closeStream()
	f.counted(true)
	if chunkedOut {
		f.writeLast([]byte("0\r\n\r\n"))
		return
	}
	f.finish(false)
}

// chunkPool holds the buffers answers are streamed through: a chunk, room
// for its chunk-size line before it and CRLF after it.
var chunkPool = sync.Pool{New: func() any {
	b := make([]byte, answerChunk+16)
	return &b
}}

// write sends p to the client and waits until the loop has taken it, and,
// when the client reads slower than the upstream sends, until the outbound
// buffer has drained below maxOutboundFwd (the loop's sweep signals it).
// It reports false when the client is gone or the exchange was aborted:
// the sweep closes a client that takes nothing for send_timeout, so a
// client that never reads does not hold the upstream connection forever.
func (f *Forward) write(p []byte) bool {
	type written struct {
		err  error
		full bool
	}
	done := make(chan written, 1)
	f.wrote(p)
	err := f.c.AsyncWrite(p, f.onLoop(func(c gnet.Conn, err error) {
		full := err == nil && c.OutboundBuffered() > maxOutboundFwd
		if full {
			// The sweep signals drained, or closes the client once it
			// takes nothing for send_timeout (Check).
			f.waitDrain = true
			f.outLast, f.outSince = c.OutboundBuffered(), f.conn.Now()
		}
		done <- written{err, full}
	}))
	if err != nil {
		return false
	}
	// The callback always runs, on a closed connection too, unless the
	// engine is stopping or it panicked (the connection then closes,
	// which aborts the exchange).
	var w written
	select {
	case w = <-done:
	case <-f.abort:
		return false
	case <-f.h.Stopping:
		return false
	}
	if w.err != nil {
		return false
	}
	if w.full {
		select {
		case <-f.drained:
		case <-f.abort:
			return false
		case <-f.h.Stopping:
			return false
		}
	}
	return true
}
