package exchange

import (
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/valyala/fasthttp"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/httpparse"
)

// Forward is one request being forwarded. The loop builds it (Init,
// Begin) and feeds its body; a goroutine (Run) does the upstream exchange
// and writes the answer with AsyncWrite, then hands the connection back
// to the loop (Conn.Released).
type Forward struct {
	conn Conn
	h    *Host
	m    *Metrics
	// g is the upstream group the request goes to, chosen by the loop
	// (the engine's loop.pickGroup); the forward keeps it through a
	// reload.
	g   *Group
	c   gnet.Conn
	req *fasthttp.Request
	// own are the server's own fields on every answer on the connection
	// ("" for none); ownHSTS says they are the TLS port's
	// Strict-Transport-Security, which replaces the upstream's.
	own     string
	ownHSTS bool
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
	fallback *FallbackAnswer
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
	// is set once Run was handed to a worker; reader is the body as the
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
	// max_conns_per_client (Group.Slots); slotHeld says the exchange
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
	um        *ServerMetrics
	upCode    int
	countDone bool
	// refused is set on the loop when the loop answered the client itself
	// and left the connection to a lingering read (refuse): release then
	// writes nothing and closes nothing.
	refused bool
	// drained is signalled by the loop when the outbound buffer is below
	// maxOutboundFwd again; waitDrain (loop-only) is set while the
	// goroutine waits for it.
	drained   chan struct{}
	waitDrain bool
	// outLast is the outbound buffer's size when the client last took
	// bytes of it, outSince the coarse time of that (loop-only, while
	// waiting for drained).
	outLast  int
	outSince int64
	// srv is the server picked for the request; pickErr says why none
	// was.
	srv     *upstream.Server
	pickErr error
	// For the access log: when it started, the server chosen, the status
	// answered and the bytes sent.
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

// Request is what the loop decided of a request it forwards, for Init.
type Request struct {
	// Conn is the client's connection as the exchange sees it, c its
	// gnet connection; h the server's share, g the group chosen.
	Conn Conn
	C    gnet.Conn
	Host *Host
	G    *Group
	// Own are the server's own fields on the connection's answers;
	// OwnHSTS, that they are the TLS port's Strict-Transport-Security.
	Own     string
	OwnHSTS bool
	// Closing: the client connection closes after this answer; HTTP10:
	// the client speaks HTTP/1.0; Head: the answer has no body; Tunnel:
	// a WebSocket upgrade.
	Closing, HTTP10, Head, Tunnel bool
	// Vary, Fallback and PageStatus: see Forward's fields.
	Vary       string
	Fallback   *FallbackAnswer
	PageStatus int
	// Client is the address counted against max_conns_per_client.
	Client netip.Addr
}

// Init readies f for r's request, on the loop; r.Conn is usually the
// engine's value that holds f.
func (f *Forward) Init(r *Request) {
	*f = Forward{conn: r.Conn, c: r.C, h: r.Host, m: &r.Host.Metrics, g: r.G, own: r.Own, ownHSTS: r.OwnHSTS,
		closing: r.Closing, http10: r.HTTP10, head: r.Head, tunnel: r.Tunnel, vary: r.Vary, fallback: r.Fallback,
		pageStatus: r.PageStatus, client: r.Client,
		abort: make(chan struct{}), drained: make(chan struct{}, 1), start: time.Now()}
	f.moved.Store(r.Conn.Now())
}

// Pick picks the server of f's group for the request, so that the
// header policy knows it (host_header = "upstream"): nil when none is
// up, and Run then answers 502.
func (f *Forward) Pick() *upstream.Server {
	f.srv, f.pickErr = f.g.Pool.Pick()
	return f.srv
}

// Begin starts the forward of req, the upstream request built for the
// server Pick returned, its body set by BodyStream (the forward releases
// req). buf holds what follows the head; Begin takes the body bytes in it
// and returns how many.
func (f *Forward) Begin(req *fasthttp.Request, buf []byte) int {
	f.req = req
	used := 0
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

// BodyStream gives req the request body as the exchange will pass it
// on: chunked, or of length bytes (none when 0). It reports whether
// there is a body.
func (f *Forward) BodyStream(req *fasthttp.Request, chunked bool, length int64) bool {
	switch {
	case chunked:
		f.chunked = &httpparse.ChunkedDecoder{}
		f.body = make(chan []byte, bodyChunks)
		f.reader = &bodyReader{f: f, ch: f.body}
		req.SetBodyStream(f.reader, -1)
	case length > 0:
		f.bodyLeft = length
		f.body = make(chan []byte, bodyChunks)
		f.reader = &bodyReader{f: f, ch: f.body}
		req.SetBodyStream(f.reader, int(length))
	}
	f.hasBody = f.body != nil
	return f.hasBody
}

// startExchange hands the forward to a worker (on the loop, once): what
// was buffered of the body goes first, the rest, if it is still coming,
// through the body channel, at body_min_rate at least.
func (f *Forward) startExchange() {
	if f.started {
		return
	}
	if f.buffering {
		f.buffering = false
		if f.body == nil {
			f.m.Bodies[BodyBuffered].Inc()
		} else {
			f.m.Bodies[BodyStreamed].Inc()
			f.rated, f.rateStart, f.rateSeen = true, f.conn.Now(), f.bodySeen
		}
	}
	if f.reader != nil {
		f.reader.pending, f.buffered = f.buffered, nil
	}
	f.started = true
	f.h.Workers.Run(f)
}

// Stop aborts the exchange from the loop; status, when not 0, is answered
// to the client if nothing of the upstream's answer was sent yet.
func (f *Forward) Stop(status int) {
	f.abortExchange(status)
	f.body, f.pending, f.buffered = nil, nil, nil
	// A forward still reading its body has no goroutine yet: run
	// answers status (or nothing), without an exchange.
	if f.buffering {
		f.buffering = false
		f.startExchange()
	}
}

// WhileForwarding handles bytes that arrive while a request is forwarded:
// body bytes go to the upstream, later requests wait in the buffer.
func (f *Forward) WhileForwarding(c gnet.Conn, buf []byte) gnet.Action {
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
		f.Stop(0)
		return gnet.Close
	}
	return gnet.None
}

// Check runs from the deadline sweep for a connection whose request is
// being forwarded: it resumes an answer waiting for the client to read,
// closes a client that reads nothing of it for send_timeout, gives up on
// a request body that the upstream was passed none of for body_timeout,
// and closes a tunnel that moved nothing for tunnel_idle_timeout.
func (f *Forward) Check(now int64) {
	up := f.g
	if f.waitDrain {
		switch out := f.c.OutboundBuffered(); {
		case out <= maxOutboundFwd:
			f.waitDrain = false
			f.drained <- struct{}{}
		case out < f.outLast:
			f.outLast, f.outSince = out, now // the client took some
		case now-f.outSince >= int64(up.SendTimeout):
			// Closing stops the exchange (OnClose), which frees the
			// upstream connection.
			f.m.SendTimeouts.Inc()
			f.conn.Close()
			return
		}
	}
	idle := now - f.moved.Load()
	switch {
	case f.body == nil:
	case !f.tunnel && idle >= int64(up.BodyTimeout):
		f.m.BodyTimeouts.Inc()
		if f.refuse(f.c, 408, abortMessage(408), f.c.InboundBuffered()) == gnet.Close {
			f.conn.Close()
		}
	case f.rated && now > f.rateDeadline(now):
		// A body larger than the buffer, sent so slowly that it would
		// hold its pooled connection without bound.
		f.m.BodyRateTimeouts.Inc()
		if f.refuse(f.c, 408, abortMessage(408), f.c.InboundBuffered()) == gnet.Close {
			f.conn.Close()
		}
	case f.tunnel && idle >= int64(up.TunnelIdleTimeout):
		// A tunnel used to have no timeout at all.
		f.m.TunnelTimeouts.Inc()
		f.conn.Close()
	}
}

// abortExchange is stop's part that any goroutine may run: the first call
// closes abort, which ends the body reader and the exchange.
func (f *Forward) abortExchange(status int) {
	if f.aborted.Swap(true) {
		return
	}
	f.abortStatus.Store(int32(status))
	close(f.abort)
}

// Run does the upstream exchange on its own goroutine.
func (f *Forward) Run() {
	defer f.recoverAt(AtForward)
	f.conn.TestPanic(AtForward)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	defer fasthttp.ReleaseRequest(f.req)
	srv := f.srv
	if f.pickErr != nil {
		f.noServer(f)
		return
	}
	f.server = srv.Addr
	um := f.g.Servers[srv]
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
	f.exchangeAndAnswer(f, srv, um, f.req, resp)
}

// exchangeFailed answers the client when the exchange with srv failed
// with err: as the abort that stopped it asked, else as upstreamFailed
// decides.
func (f *Forward) exchangeFailed(err error, srv *upstream.Server, um *ServerMetrics) {
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
func (f *Forward) answerError(status int, msg string) {
	f.status.Store(int32(status))
	if f.hasBody && !f.bodyDone.Load() || f.aborted.Load() {
		f.closing = true // the rest of the body would be read as a request
	}
	b := f.conn.AppendText(nil, status, f.errorFields(status), msg, f.head, f.http10, f.closing)
	f.writeLast(b)
}

// AnswerError is answerError for a forward that asks nothing upstream
// (an ACME challenge's 404, an upgrade with several Upgrade fields).
func (f *Forward) AnswerError(status int, msg string) { f.answerError(status, msg) }

// AnswerOK answers 200 with body, without the connection's own fields,
// for a forward that asks nothing upstream (an ACME challenge's key
// authorization).
func (f *Forward) AnswerOK(body []byte) {
	f.status.Store(200)
	f.writeLast(f.conn.AppendText(nil, 200, "", string(body), f.head, f.http10, f.closing))
}

// writeLast writes the end of the answer and hands the connection back to
// the loop in the same trip through it (see release).
func (f *Forward) writeLast(p []byte) {
	f.putSlot()
	f.wrote(p)
	f.c.AsyncWrite(p, f.onLoop(func(c gnet.Conn, _ error) { f.release(c, false) }))
}

// wrote counts p, about to be written to the client, as sent. The first
// write of an answer starts with its head, whose length is kept so that
// the log can tell the body's bytes from the head's.
func (f *Forward) wrote(p []byte) {
	if f.sent.Load() == 0 {
		f.headSent.Store(int64(fw.HeadLen(p)))
	}
	f.sent.Add(int64(len(p)))
}

// putSlot gives back the client's slot, if the exchange holds one, before
// the connection is handed back to the loop: the client's next request,
// served once the loop has it back, must find the slot free.
func (f *Forward) putSlot() {
	if f.slotHeld {
		f.slotHeld = false
		f.g.Slots.Put(f.client)
	}
}

// finish hands the connection back to the loop without writing, closing
// it when closeConn is set (an answer cut short).
func (f *Forward) finish(closeConn bool) {
	f.putSlot()
	f.c.AsyncWrite(nil, f.onLoop(func(c gnet.Conn, _ error) { f.release(c, closeConn) }))
}

// onLoop wraps fn as an AsyncWrite callback of f's: it runs on the loop,
// where a panic would end the loop's goroutine and the process with it, so
// it is recovered there and f's connection closed.
func (f *Forward) onLoop(fn func(c gnet.Conn, err error)) gnet.AsyncCallback {
	return func(c gnet.Conn, err error) error {
		defer f.recoverAt(AtCallback)
		f.conn.TestPanic(AtCallback)
		fn(c, err)
		return nil
	}
}

// recoverAt, deferred at a boundary, recovers a panic there and hands it
// to the engine (Conn.Panicked), which logs it and closes the connection.
func (f *Forward) recoverAt(at Boundary) {
	if v := recover(); v != nil {
		f.conn.Panicked(at, v)
	}
}

// release runs on the loop once the answer is written: the connection
// is handed back (Conn.Released), unless the loop refused the request
// and left the connection to a lingering read, when only the request is
// logged.
func (f *Forward) release(c gnet.Conn, closeConn bool) {
	if f.refused {
		f.conn.Log()
		return
	}
	f.waitDrain = false
	f.conn.Released(c, closeConn || f.closing)
}

// Moved is the coarse clock's reading when bytes last moved (a body
// chunk passed on, tunnel bytes either way): what body_timeout and
// tunnel_idle_timeout count from. Tests read it to know that the server
// has taken what they sent before they move a fake clock on.
func (f *Forward) Moved() int64 { return f.moved.Load() }

// SendStall reports whether the answer waits for the client to take its
// outbound buffer (send_timeout runs), and the coarse time it last took
// bytes of it, or the wait began. Loop-only, as the state it reads.
func (f *Forward) SendStall() (waiting bool, since int64) { return f.waitDrain, f.outSince }

// Record is what the access log records of f's answer, once written.
func (f *Forward) Record() Record {
	sent := f.sent.Load()
	r := Record{Status: int(f.status.Load()), Bytes: sent, BodyBytes: sent - f.headSent.Load(),
		Upstream: f.server, UpstreamStatus: int(f.upStatus.Load()), UpstreamTime: time.Duration(f.upTime.Load()), Start: f.start}
	if fa := f.fallback; fa != nil && fa.answered {
		r.Rule, r.Location = fa.Rule, fa.Location // fallback.go
	}
	return r
}
