package engine

import (
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/valyala/fasthttp"

	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/httpparse"
)

// forward is one request being forwarded. The loop builds it and feeds its
// body; a goroutine (run) does the upstream exchange and writes the answer
// with AsyncWrite, then hands the connection back to the loop.
type forward struct {
	s *Server
	// g is the upstream group the request goes to, chosen by the loop
	// (pickGroup); the forward keeps it through a reload.
	g   *group
	cs  *conn
	c   gnet.Conn
	req *fasthttp.Request
	// closing: the client connection closes after this answer; http10:
	// the client speaks HTTP/1.0 (no chunked answers); head: no body.
	closing, http10, head bool
	// tunnel: an upgraded connection relayed both ways (WebSocket).
	tunnel bool
	// vary is the Vary line of rule conditions that failed before the
	// request became a miss (matcher.Match.Vary): the upstream's answer
	// depends on them too, so a cache must key it on those fields.
	vary string
	// fallback is the answer of the fallback rule the request matched,
	// written instead of the upstream's when its status lets it
	// (fallback.go); nil for a plain miss.
	fallback *fallbackAnswer
	// pageStatus replaces the upstream's status, as an error page that
	// forwards gives its error's (0: none).
	pageStatus int
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
	// buffering is set (loop-only) while the body is read into buffered
	// before the exchange starts: a body of up to request_buffer_bytes
	// is read whole, so that a client sending it slowly holds no pooled
	// connection meanwhile (as nginx's proxy_request_buffering). started
	// is set once run was handed to a worker; reader is the body as the
	// upstream request reads it, which takes buffered first.
	buffering, started bool
	buffered           []byte
	reader             *bodyReader
	// rateStart and rateSeen (loop-only) are the coarse time the exchange
	// of a body larger than the buffer started, moved on by the time the
	// upstream took nothing, and bodySeen then: the rest must come at
	// body_min_rate (rateDeadline). rated says they are in use;
	// stallStart is when the pending chunk was kept.
	rateStart, rateSeen, stallStart int64
	rated                           bool
	// client is the address the exchange counts against
	// max_conns_per_client (clientSlots); slotHeld says the exchange
	// holds one of its slots (the forward's goroutine alone reads and
	// writes it).
	client   netip.Addr
	slotHeld bool
	// pending is a body chunk the full channel did not take yet;
	// pendingEnd says it is the last.
	pending    []byte
	pendingEnd bool
	// stalled is set by the loop when body was full and bytes wait in the
	// connection's buffer; the reader wakes the connection when it drains.
	stalled atomic.Bool
	// moved is the coarse time bytes last moved on: a body chunk passed
	// to the upstream (the body timeout counts from it), or, in a tunnel,
	// a chunk either way (the tunnel's idle timeout counts from it). A
	// read that is only buffered does not count: the client could keep a
	// stalled forward alive forever by sending.
	moved atomic.Int64
	// abort is closed by the loop to stop the exchange (client gone, body
	// timeout); abortStatus says what to answer, if anything.
	abort       chan struct{}
	aborted     atomic.Bool
	abortStatus atomic.Int32
	// um and upCode are the metrics of the server that answered and its
	// status, for counted; countDone says the answer was counted (the
	// forward's goroutine alone reads and writes them).
	um        *upstreamMetrics
	upCode    int
	countDone bool
	// refused is set on the loop when the loop answered the client itself
	// and left the connection to a lingering read (refuse): release then
	// writes nothing and closes nothing.
	refused bool
	// drained is signalled by the loop when the outbound buffer is below
	// maxOutboundFwd again.
	drained chan struct{}
	// outLast is the outbound buffer's size when the client last took
	// bytes of it, outSince the coarse time of that (loop-only, while
	// waiting for drained).
	outLast  int
	outSince int64
	// srv is the server picked for the request; pickErr says why none
	// was.
	srv     *upstream.Server
	pickErr error
	// For the access log: the request (copied), when it started, the
	// server chosen, the status answered and the bytes sent.
	info   requestInfo
	start  time.Time
	server string
	status atomic.Int32
	sent   atomic.Int64
	// headSent is the length of the answer's head among the bytes sent;
	// upStatus and upTime the upstream's status and exchange time
	// (nanoseconds).
	headSent atomic.Int64
	upStatus atomic.Int32
	upTime   atomic.Int64
}

// startForward builds the upstream request for req (copying everything it
// needs, since req points into the loop's buffer) and starts it. buf holds
// what follows the head; startForward takes the body bytes in it and
// returns how many.
func (cs *conn) startForward(s *Server, req *httpparse.Request, buf []byte, closing bool) int {
	f := &forward{s: s, g: cs.loop.group, cs: cs, c: cs.c, closing: closing, http10: req.Minor == 0, head: isHead(req.Method),
		abort: make(chan struct{}), drained: make(chan struct{}, 1)}
	f.start = time.Now()
	f.moved.Store(s.clock.now())
	f.vary = cs.loop.match.Vary() // the lookup of this request, just done (conn.answer)
	f.fallback = cs.fallbackFor()
	f.pageStatus, cs.pageStatus = cs.pageStatus, 0
	if cs.loop.alog != nil {
		f.info = cs.loop.ri.copy()
	}
	// The server is picked here, so that the header policy knows it
	// (host_header = "upstream"); run answers 502 when none is up.
	f.srv, f.pickErr = f.g.Pool.Pick()
	f.req = cs.upstreamRequest(req, cs.https(req), f.g, f.srv)
	r := f.req
	used := 0
	switch {
	case req.Chunked:
		f.chunked = &httpparse.ChunkedDecoder{}
		f.body = make(chan []byte, bodyChunks)
		f.reader = &bodyReader{f: f, ch: f.body}
		r.SetBodyStream(f.reader, -1)
	case req.ContentLength > 0:
		f.bodyLeft = req.ContentLength
		f.body = make(chan []byte, bodyChunks)
		f.reader = &bodyReader{f: f, ch: f.body}
		r.SetBodyStream(f.reader, int(req.ContentLength))
	}
	if f.body != nil && req.ExpectContinue {
		// The client waits for this before sending the body; fasthttp
		// cannot relay a 1xx, so the server answers it itself, as nginx
		// does when it reads a body.
		cs.loop.out = append(cs.loop.out, "HTTP/1.1 100 Continue\r\n\r\n"...)
	}
	cs.fwd = f
	f.hasBody = f.body != nil
	f.client = s.conns.client(cs.requestClient(req))
	// With no server up there is nothing to wait for: the 502 goes out
	// at once.
	f.buffering = f.hasBody && f.pickErr == nil
	if f.body != nil {
		used = f.feed(buf)
	}
	if !f.buffering {
		f.startExchange()
	}
	return used
}

// startExchange hands the forward to a worker (on the loop, once): what
// was buffered of the body goes first, the rest, if it is still coming,
// through the body channel, at body_min_rate at least.
func (f *forward) startExchange() {
	if f.started {
		return
	}
	if f.buffering {
		f.buffering = false
		if f.body == nil {
			f.s.m.bodies[bodyBuffered].Inc()
		} else {
			f.s.m.bodies[bodyStreamed].Inc()
			f.rated, f.rateStart, f.rateSeen = true, f.s.clock.now(), f.bodySeen
		}
	}
	if f.reader != nil {
		f.reader.pending, f.buffered = f.buffered, nil
	}
	f.started = true
	f.s.workers.Run(f)
}

// stop aborts the exchange from the loop; status, when not 0, is answered
// to the client if nothing of the upstream's answer was sent yet.
func (f *forward) stop(status int) {
	f.abortExchange(status)
	f.body, f.pending, f.buffered = nil, nil, nil
	// A forward still reading its body has no goroutine yet: run
	// answers status (or nothing), without an exchange.
	if f.buffering {
		f.buffering = false
		f.startExchange()
	}
}

// whileForwarding handles bytes that arrive while a request is forwarded:
// body bytes go to the upstream, later requests wait in the buffer.
func (cs *conn) whileForwarding(c gnet.Conn, buf []byte) gnet.Action {
	f := cs.fwd
	if f.body != nil {
		if n := f.feed(buf); n > 0 {
			c.Discard(n)
			buf = buf[n:]
		}
	}
	// Checked whether or not the body is stalled: with the body channel
	// full, a client sending at line rate grew the buffer without bound.
	if len(buf) > maxPendingWhileForwarding {
		if !f.tunnel && f.hasBody && !f.bodyDone.Load() && !f.aborted.Load() {
			// The body came faster than the upstream took it, and this
			// much of it cannot be held.
			return f.refuse(c, 413, "request body too large to buffer\n", len(buf))
		}
		f.stop(0)
		return gnet.Close
	}
	return gnet.None
}

// checkForward runs from the deadline sweep for a connection whose request
// is being forwarded: it resumes an answer waiting for the client to read,
// closes a client that reads nothing of it for send_timeout, gives up on
// a request body that the upstream was passed none of for body_timeout,
// and closes a tunnel that moved nothing for tunnel_idle_timeout.
func (cs *conn) checkForward(now int64) {
	f := cs.fwd
	up := f.g
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
	idle := now - f.moved.Load()
	switch {
	case f.body == nil:
	case !f.tunnel && idle >= int64(up.BodyTimeout):
		cs.loop.srv.m.timeouts.body.Inc()
		if f.refuse(cs.c, 408, abortMessage(408), cs.c.InboundBuffered()) == gnet.Close {
			cs.close()
		}
	case f.rated && now > f.rateDeadline(now):
		// A body larger than the buffer, sent so slowly that it would
		// hold its pooled connection without bound.
		cs.loop.srv.m.timeouts.bodyRate.Inc()
		if f.refuse(cs.c, 408, abortMessage(408), cs.c.InboundBuffered()) == gnet.Close {
			cs.close()
		}
	case f.tunnel && idle >= int64(up.TunnelIdleTimeout):
		// A tunnel used to have no timeout at all.
		cs.loop.srv.m.timeouts.tunnel.Inc()
		cs.close()
	}
}

// abortExchange is stop's part that any goroutine may run: the first call
// closes abort, which ends the body reader and the exchange.
func (f *forward) abortExchange(status int) {
	if f.aborted.Swap(true) {
		return
	}
	f.abortStatus.Store(int32(status))
	close(f.abort)
}

// Run does the upstream exchange on its own goroutine.
func (f *forward) Run() {
	defer f.s.recoverConn(atForward, f.c, f.cs, nil)
	f.s.testPanic(atForward, nil)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	defer fasthttp.ReleaseRequest(f.req)
	srv := f.srv
	if f.pickErr != nil {
		f.noServer(f)
		return
	}
	f.server = srv.Addr
	um := f.g.metrics[srv]
	if f.aborted.Load() {
		// Stopped while its body was read (client gone, body too large,
		// too slow or malformed): nothing was sent.
		srv.Cancel()
		if st := f.abortStatus.Load(); st != 0 {
			f.answerError(int(st), abortMessage(int(st)))
			return
		}
		f.finish(true)
		return
	}
	if !f.takeSlot(f, srv, um) {
		return
	}
	f.slotHeld = true
	defer f.putSlot()
	start, err := f.exchange(srv, f.req, resp)
	defer func() { f.s.m.fwdDur.Update(time.Since(start).Seconds()) }()
	if err != nil {
		f.exchangeFailed(err, srv, um)
		return
	}
	f.answered(um, resp.StatusCode(), start)
	if f.fallbackTakes(resp) { // fallback.go
		f.counted(true)
		f.writeFallback()
		return
	}
	f.relay(resp)
}

// exchangeFailed answers the client when the exchange with srv failed
// with err: as the abort that stopped it asked, else as upstreamFailed
// decides.
func (f *forward) exchangeFailed(err error, srv *upstream.Server, um *upstreamMetrics) {
	if st := f.abortStatus.Load(); st != 0 {
		f.answerError(int(st), abortMessage(int(st)))
		return
	}
	if f.aborted.Load() {
		f.finish(true)
		return
	}
	f.upstreamFailed(f, err, srv, um)
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

// answerError answers the client when nothing of an upstream answer has
// been sent, and closes if the request body may still be on its way.
func (f *forward) answerError(status int, msg string) {
	f.status.Store(int32(status))
	if f.hasBody && !f.bodyDone.Load() || f.aborted.Load() {
		f.closing = true // the rest of the body would be read as a request
	}
	b := appendText(nil, status, f.errorFields(status), msg, f.head, f.s.date.get(), connFieldFor(f.http10, f.closing))
	f.writeLast(b)
}

// writeLast writes the end of the answer and hands the connection back to
// the loop in the same trip through it (see release).
func (f *forward) writeLast(p []byte) {
	f.putSlot()
	f.wrote(p)
	f.c.AsyncWrite(p, f.onLoop(func(c gnet.Conn, _ error) { f.release(c, false) }))
}

// wrote counts p, about to be written to the client, as sent. The first
// write of an answer starts with its head, whose length is kept so that
// the log can tell the body's bytes from the head's.
func (f *forward) wrote(p []byte) {
	if f.sent.Load() == 0 {
		f.headSent.Store(int64(headLen(p)))
	}
	f.sent.Add(int64(len(p)))
}

// putSlot gives back the client's slot, if the exchange holds one, before
// the connection is handed back to the loop: the client's next request,
// served once the loop has it back, must find the slot free.
func (f *forward) putSlot() {
	if f.slotHeld {
		f.slotHeld = false
		f.g.slots.put(f.client)
	}
}

// finish hands the connection back to the loop without writing, closing
// it when closeConn is set (an answer cut short).
func (f *forward) finish(closeConn bool) {
	f.putSlot()
	f.c.AsyncWrite(nil, f.onLoop(func(c gnet.Conn, _ error) { f.release(c, closeConn) }))
}

// onLoop wraps fn as an AsyncWrite callback of f's: it runs on the loop,
// where a panic would end the loop's goroutine and the process with it, so
// it is recovered there and f's connection closed.
func (f *forward) onLoop(fn func(c gnet.Conn, err error)) gnet.AsyncCallback {
	return func(c gnet.Conn, err error) error {
		defer f.s.recoverConn(atCallback, c, f.cs, nil)
		f.s.testPanic(atCallback, nil)
		fn(c, err)
		return nil
	}
}

// release runs on the loop once the answer is written: it closes the
// connection, or serves the requests that came meanwhile (new bytes would
// call OnTraffic anyway, so the loop is only woken for bytes already
// buffered).
func (f *forward) release(c gnet.Conn, closeConn bool) {
	if f.refused {
		f.logForwarded()
		return
	}
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

// logForwarded logs a forwarded request once its answer is written; it
// runs on the loop.
func (f *forward) logForwarded() {
	if l := f.cs.loop; l.alog != nil {
		sent := f.sent.Load()
		a := logged{status: int(f.status.Load()), bytes: sent, bodyBytes: sent - f.headSent.Load(),
			upstream: f.server, upStatus: int(f.upStatus.Load()), upTime: time.Duration(f.upTime.Load()), start: f.start}
		if fa := f.fallback; fa != nil && fa.answered {
			a.rule, a.location = fa.rule, fa.location // fallback.go
		}
		l.log(f.cs.ip, &f.info, a)
	}
}
