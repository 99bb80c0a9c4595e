package engine

import (
	"bytes"
	"io"
	"iter"
	"strconv"
	"sync"

	"github.com/panjf2000/gnet/v2"
	"github.com/valyala/fasthttp"

	"github.com/redirectd/redirectd/httpparse"
)

// relay writes the upstream's answer to the client: its head, then its
// body streamed in chunks, re-framed for the client.
func (f *forward) relay(resp *fasthttp.Response) {
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
func (f *forward) upstreamStatus(resp *fasthttp.Response) (int, []byte) {
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
func (f *forward) answerHead(code int, msg []byte, fields iter.Seq2[[]byte, []byte], length int) (head []byte, chunkedOut, noBody bool) {
	f.status.Store(int32(code))
	noBody = f.head || code == 204 || code == 304 || code < 200
	head = make([]byte, 0, 512)
	head = appendStatusLine(head, code, msg)
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
	if f.closing {
		head = append(head, "Connection: close\r\n"...)
	} else if f.http10 {
		head = append(head, "Connection: keep-alive\r\n"...)
	}
	return append(head, "\r\n"...), chunkedOut, noBody
}

// appendAnswerFields is the header policy of every answer relayed from
// an upstream, on HTTP/1.1 and HTTP/2, a tunnel's 101 included: one
// place to change what forwarded answers carry. It appends to head the
// upstream's fields less the hop-by-hop ones (hopByHop and those its
// Connection names) and Content-Length (the caller frames the body),
// each checked by appendUpstreamField; the server's own Strict-
// Transport-Security in place of the upstream's on the TLS port; the
// Vary of the rule conditions that failed (a second Vary line adds to
// the upstream's, RFC 9110 5.3); and the server's own fields
// (conn.fields). A 101 (upgrade) keeps its Connection and Upgrade: they
// are the switch.
func (f *forward) appendAnswerFields(head []byte, fields iter.Seq2[[]byte, []byte], upgrade bool) []byte {
	var connTokens []byte
	own := f.cs.fields()
	hsts := f.cs.tls && own != ""
	for k, v := range fields {
		if bytes.EqualFold(k, []byte("connection")) {
			connTokens = append(append(connTokens, v...), ',')
		}
	}
	for k, v := range fields {
		switch {
		case upgrade && (bytes.EqualFold(k, []byte("connection")) || bytes.EqualFold(k, []byte("upgrade"))):
		case isHopByHop(k, connTokens), bytes.EqualFold(k, []byte("content-length")),
			hsts && bytes.EqualFold(k, []byte("strict-transport-security")):
			continue // the TLS port's own Strict-Transport-Security replaces the upstream's
		}
		head = f.appendUpstreamField(head, k, v)
	}
	head = append(head, f.vary...)
	return append(head, own...)
}

// appendStatusLine appends an HTTP/1.1 status line for an upstream's
// answer: the code, and its reason if every byte of it is one a reason
// may hold (else, or when empty, the standard text). Written from the
// code, never copied: a bare CR in a reason ("403 Forbidden\rSet-Cookie:
// ...") reads as a line end to some clients.
func appendStatusLine(head []byte, code int, reason []byte) []byte {
	head = append(head, "HTTP/1.1 "...)
	head = strconv.AppendInt(head, int64(code), 10)
	head = append(head, ' ')
	if len(reason) == 0 || !httpparse.ValidReason(reason) {
		head = append(head, fasthttp.StatusMessage(code)...)
	} else {
		head = append(head, reason...)
	}
	return append(head, "\r\n"...)
}

// appendUpstreamField appends an upstream answer's field to head if its
// name is a token and its value holds only field-value bytes, the checks
// a client's fields pass; a field that fails them is left out and
// counted (redirectd_upstream_fields_dropped_total), so that no byte an
// upstream sends can start a field or an answer of its own.
func (f *forward) appendUpstreamField(head, k, v []byte) []byte {
	if !httpparse.ValidToken(k) || !httpparse.ValidFieldValue(v) {
		f.s.m.fieldsDropped.Inc()
		return head
	}
	return append(append(append(append(head, k...), ": "...), v...), "\r\n"...)
}

// relayBody writes head, then the body read from stream, re-framed as
// answerHead decided, and hands the connection back to the loop. It
// closes the stream with closer before the answer's last write, so that
// the upstream connection is back in the pool before the client, having
// its answer, sends the next request (which took a new connection else).
func (f *forward) relayBody(head []byte, stream io.Reader, closer io.Closer, length int, chunkedOut bool) {
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
func (f *forward) write(p []byte) bool {
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
			// takes nothing for send_timeout (checkForward).
			f.cs.waitDrain = f
			f.outLast, f.outSince = c.OutboundBuffered(), f.s.clock.now()
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
	case <-f.s.stopping:
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
		case <-f.s.stopping:
			return false
		}
	}
	return true
}
