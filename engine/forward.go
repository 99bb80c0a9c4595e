package engine

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/valyala/fasthttp"
)

// UpstreamOptions configure forwarding of misses.
type UpstreamOptions struct {
	Pool *upstream.Pool
	// HostFromUpstream sends the server's address as Host instead of the
	// client's.
	HostFromUpstream bool
	// MaxRequestBodyBytes bounds a forwarded body; 0: no limit.
	MaxRequestBodyBytes int64
	// BodyTimeout answers 408 when a forwarded request's body stops
	// arriving for this long (default 10s).
	BodyTimeout time.Duration
}

// DefaultBodyTimeout is UpstreamOptions.BodyTimeout's default.
const DefaultBodyTimeout = 10 * time.Second

// Flow control of forwarding: at most bodyChunks copied chunks of a
// request body wait for the upstream, and an answer is read from the
// upstream only while less than maxOutboundFwd of it waits for the client.
const (
	bodyChunks     = 16
	maxOutboundFwd = 256 << 10
	answerChunk    = 32 << 10
)

// forward is one request being forwarded. The loop builds it and feeds its
// body; a goroutine (run) does the upstream exchange and writes the answer
// with AsyncWrite, then hands the connection back to the loop.
type forward struct {
	s   *Server
	cs  *conn
	c   gnet.Conn
	req *fasthttp.Request
	// closing: the client connection closes after this answer; http10:
	// the client speaks HTTP/1.0 (no chunked answers); head: no body.
	closing, http10, head bool
	// tunnel: an upgraded connection relayed both ways (WebSocket).
	tunnel bool
	// body carries copied request body chunks from the loop; nil when the
	// request has none. It is closed by the loop at the body's end.
	body chan []byte
	// hasBody is set when the request has a body; bodyDone once the loop
	// has passed all of it on.
	hasBody  bool
	bodyDone atomic.Bool
	// bodyLeft (Content-Length) or chunked tells the loop how to find the
	// body's end; both are loop-only.
	bodyLeft int64
	chunked  *httpparse.ChunkedDecoder
	bodySeen int64
	// pending is a body chunk the full channel did not take yet;
	// pendingEnd says it is the last.
	pending    []byte
	pendingEnd bool
	// stalled is set by the loop when body was full and bytes wait in the
	// connection's buffer; the reader wakes the connection when it drains.
	stalled atomic.Bool
	// abort is closed by the loop to stop the exchange (client gone, body
	// timeout); abortStatus says what to answer, if anything.
	abort       chan struct{}
	aborted     atomic.Bool
	abortStatus atomic.Int32
	// drained is signalled by the loop when the outbound buffer is below
	// maxOutboundFwd again.
	drained chan struct{}
	// For the access log: the request (copied), when it started, the
	// server chosen, the status answered and the bytes sent.
	info   requestInfo
	start  time.Time
	server string
	status atomic.Int32
	sent   atomic.Int64
}

// hopByHop lists the headers that describe one connection and are not
// forwarded (RFC 9110 7.6.1), in lower case.
var hopByHop = []string{"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}

func isHopByHop(name []byte, connTokens []byte) bool {
	for _, h := range hopByHop {
		if len(name) == len(h) && bytes.EqualFold(name, []byte(h)) {
			return true
		}
	}
	// Headers named by Connection are hop-by-hop too.
	for tok := range bytes.SplitSeq(connTokens, []byte{','}) {
		if bytes.EqualFold(bytes.TrimSpace(tok), name) {
			return true
		}
	}
	return false
}

// startForward builds the upstream request for req (copying everything it
// needs, since req points into the loop's buffer) and starts it. buf holds
// what follows the head; startForward takes the body bytes in it and
// returns how many.
func (cs *conn) startForward(s *Server, req *httpparse.Request, buf []byte, closing bool) int {
	f := &forward{s: s, cs: cs, c: cs.c, closing: closing, http10: req.Minor == 0, head: isHead(req.Method),
		abort: make(chan struct{}), drained: make(chan struct{}, 1)}
	f.start = time.Now()
	if cs.loop.alog != nil {
		f.info = cs.loop.ri.copy()
	}
	f.req = fasthttp.AcquireRequest()
	r := f.req
	r.Header.DisableNormalizing()
	r.URI().DisablePathNormalizing = true
	r.Header.SetMethodBytes(req.Method)
	uri := req.Path
	if req.Query != nil {
		uri = append(append(append([]byte(nil), req.Path...), '?'), req.Query...)
	}
	r.SetRequestURIBytes(uri)
	var connTokens, xff []byte
	for i := range req.Headers {
		if h := &req.Headers[i]; bytes.EqualFold(h.Name, []byte("connection")) {
			connTokens = append(append(connTokens, h.Value...), ',')
		}
	}
	for i := range req.Headers {
		h := &req.Headers[i]
		switch {
		case isHopByHop(h.Name, connTokens),
			bytes.EqualFold(h.Name, []byte("host")),
			bytes.EqualFold(h.Name, []byte("content-length")),
			bytes.EqualFold(h.Name, []byte("expect")),
			bytes.EqualFold(h.Name, []byte("x-forwarded-proto")),
			bytes.EqualFold(h.Name, []byte("x-forwarded-host")):
		case bytes.EqualFold(h.Name, []byte("x-forwarded-for")):
			xff = append(append(xff, h.Value...), ", "...)
		default:
			r.Header.AddBytesKV(h.Name, h.Value)
		}
	}
	r.Header.SetBytesKV([]byte("X-Forwarded-For"), append(xff, cs.ip.String()...))
	proto := "http"
	if s.opts.HTTPSRedirect && forwardedHTTPS(req) {
		proto = "https" // marked by the TLS terminator this mode trusts
	}
	r.Header.Set("X-Forwarded-Proto", proto)
	if len(req.Host) > 0 {
		r.Header.SetBytesKV([]byte("X-Forwarded-Host"), req.Host)
		r.Header.SetHostBytes(req.Host)
	}
	used := 0
	switch {
	case req.Chunked:
		f.chunked = &httpparse.ChunkedDecoder{}
		f.body = make(chan []byte, bodyChunks)
		r.SetBodyStream(&bodyReader{f: f, ch: f.body}, -1)
	case req.ContentLength > 0:
		f.bodyLeft = req.ContentLength
		f.body = make(chan []byte, bodyChunks)
		r.SetBodyStream(&bodyReader{f: f, ch: f.body}, int(req.ContentLength))
	}
	if f.body != nil && req.ExpectContinue {
		// The client waits for this before sending the body; fasthttp
		// cannot relay a 1xx, so the server answers it itself, as nginx
		// does when it reads a body.
		cs.loop.out = append(cs.loop.out, "HTTP/1.1 100 Continue\r\n\r\n"...)
	}
	cs.fwd = f
	f.hasBody = f.body != nil
	if f.body != nil {
		used = f.feed(buf)
	}
	go f.run()
	return used
}

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

// stop aborts the exchange from the loop; status, when not 0, is answered
// to the client if nothing of the upstream's answer was sent yet.
func (f *forward) stop(status int) {
	if f.aborted.Swap(true) {
		return
	}
	f.abortStatus.Store(int32(status))
	close(f.abort)
	f.body, f.pending = nil, nil
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

// run does the upstream exchange on its own goroutine.
func (f *forward) run() {
	defer f.s.recoverConn(atForward, f.c, f.cs, nil)
	f.s.testPanic(atForward, nil)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	defer fasthttp.ReleaseRequest(f.req)
	pool := f.s.up.Pool
	srv, err := pool.Pick()
	if err != nil {
		f.s.m.forwarded[5].Inc()
		f.answerError(502, "no upstream server is available\n")
		return
	}
	f.server = srv.Addr
	if f.s.up.HostFromUpstream || len(f.req.Header.Host()) == 0 {
		f.req.Header.SetHost(srv.Addr)
	}
	resp.Header.SetNoDefaultContentType(true)
	start := time.Now()
	err = srv.Client.Do(f.req, resp)
	srv.Done(err != nil && upstream.IsConnError(err))
	um := f.s.upMetrics[srv.Addr]
	defer func() { f.s.m.fwdDur.Update(time.Since(start).Seconds()) }()
	if err != nil {
		if st := f.abortStatus.Load(); st != 0 {
			f.answerError(int(st), abortMessage(int(st)))
			return
		}
		if f.aborted.Load() {
			f.finish(true)
			return
		}
		status, msg, count := 502, "the upstream server could not be reached\n", um.failed
		var ne net.Error
		if errors.Is(err, fasthttp.ErrTimeout) || errors.As(err, &ne) && ne.Timeout() && !upstream.IsConnError(err) {
			status, msg, count = 504, "the upstream server did not answer in time\n", um.timedOut
		}
		count.Inc()
		f.s.m.forwarded[5].Inc()
		f.s.log.Warn("forwarding failed", "server", srv.Addr, "status", status, "err", err)
		f.answerError(status, msg)
		return
	}
	um.ok.Inc()
	um.dur.Update(time.Since(start).Seconds())
	if c := resp.StatusCode() / 100; c >= 1 && c <= 5 {
		f.s.m.forwarded[c].Inc()
	}
	f.relay(resp)
}

func abortMessage(status int) string {
	switch status {
	case 408:
		return "request body not received in time\n"
	case 413:
		return "request body too large\n"
	}
	return "bad request body\n"
}

// relay writes the upstream's answer to the client: its head, then its
// body streamed in chunks, re-framed for the client.
func (f *forward) relay(resp *fasthttp.Response) {
	code := resp.StatusCode()
	f.status.Store(int32(code))
	length := resp.Header.ContentLength()
	noBody := f.head || code == 204 || code == 304 || code < 200
	chunkedOut := false
	head := make([]byte, 0, 512)
	head = append(head, "HTTP/1.1 "...)
	head = strconv.AppendInt(head, int64(code), 10)
	head = append(head, ' ')
	if msg := resp.Header.StatusMessage(); len(msg) > 0 {
		head = append(head, msg...)
	} else {
		head = append(head, fasthttp.StatusMessage(code)...)
	}
	head = append(head, "\r\n"...)
	var connTokens []byte
	for k, v := range resp.Header.All() {
		if bytes.EqualFold(k, []byte("connection")) {
			connTokens = append(append(connTokens, v...), ',')
		}
	}
	for k, v := range resp.Header.All() {
		if isHopByHop(k, connTokens) || bytes.EqualFold(k, []byte("content-length")) {
			continue
		}
		head = append(append(append(append(head, k...), ": "...), v...), "\r\n"...)
	}
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
	head = append(head, "\r\n"...)

	stream := resp.BodyStream()
	if stream != nil {
		defer resp.CloseBodyStream()
	}
	if noBody || stream == nil {
		if !noBody {
			head = append(head, resp.Body()...)
		}
		f.writeLast(head)
		return
	}
	if length >= 0 && length <= answerChunk {
		// A small answer of known length goes out with its head in one
		// write: one trip through the loop instead of two.
		out := append(head, make([]byte, length)...)
		if _, err := io.ReadFull(stream, out[len(head):]); err != nil {
			f.s.log.Warn("upstream answer cut short", "err", err)
			f.finish(true)
			return
		}
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
			// takes a truncated answer for a whole one.
			f.s.log.Warn("upstream answer cut short", "err", err)
			f.finish(true)
			return
		}
	}
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
// It reports false when the client is gone or the exchange was aborted.
func (f *forward) write(p []byte) bool {
	type written struct {
		err  error
		full bool
	}
	done := make(chan written, 1)
	f.sent.Add(int64(len(p)))
	err := f.c.AsyncWrite(p, func(c gnet.Conn, err error) error {
		full := err == nil && c.OutboundBuffered() > maxOutboundFwd
		if full {
			f.cs.waitDrain = f
		}
		done <- written{err, full}
		return nil
	})
	if err != nil {
		return false
	}
	// The callback always runs, on a closed connection too, unless the
	// engine is stopping.
	var w written
	select {
	case w = <-done:
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

// answerError answers the client when nothing of an upstream answer has
// been sent, and closes if the request body may still be on its way.
func (f *forward) answerError(status int, msg string) {
	f.status.Store(int32(status))
	if f.hasBody && !f.bodyDone.Load() || f.aborted.Load() {
		f.closing = true // the rest of the body would be read as a request
	}
	var b []byte
	b = appendText(b, status, msg, f.head, nil, f.s.date.get(), true)
	if !f.closing {
		b = appendText(nil, status, msg, f.head, &httpparse.Request{Major: 1, Minor: 1}, f.s.date.get(), false)
	}
	f.writeLast(b)
}

// writeLast writes the end of the answer and hands the connection back to
// the loop in the same trip through it (see release).
func (f *forward) writeLast(p []byte) {
	f.sent.Add(int64(len(p)))
	f.c.AsyncWrite(p, func(c gnet.Conn, _ error) error {
		f.release(c, false)
		return nil
	})
}

// finish hands the connection back to the loop without writing, closing
// it when closeConn is set (an answer cut short).
func (f *forward) finish(closeConn bool) {
	f.c.AsyncWrite(nil, func(c gnet.Conn, _ error) error {
		f.release(c, closeConn)
		return nil
	})
}

// release runs on the loop once the answer is written: it closes the
// connection, or serves the requests that came meanwhile (new bytes would
// call OnTraffic anyway, so the loop is only woken for bytes already
// buffered).
func (f *forward) release(c gnet.Conn, closeConn bool) {
	if f.cs.fwd == f {
		f.cs.fwd = nil
		f.cs.waitDrain = nil
	}
	f.logForwarded()
	switch {
	case closeConn || f.closing || f.s.draining.Load():
		c.Close()
	case c.InboundBuffered() > 0:
		c.Wake(nil)
	}
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
// and gives up on a request body that stopped coming.
func (cs *conn) checkForward(now int64) {
	f := cs.fwd
	if w := cs.waitDrain; w != nil && cs.c.OutboundBuffered() <= maxOutboundFwd {
		cs.waitDrain = nil
		w.drained <- struct{}{}
	}
	if f.body != nil && !f.tunnel && now-cs.active >= int64(cs.loop.srv.up.BodyTimeout) {
		cs.loop.srv.m.timeouts.body.Inc()
		f.stop(408)
	}
}
