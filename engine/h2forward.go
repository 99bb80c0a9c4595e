package engine

import (
	"bytes"
	"errors"
	"io"
	"net"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/httpparse"
)

// h2forward is one HTTP/2 stream forwarded to the upstream over HTTP/1.1
// (the same pool, header policy, fallback rules and answer policy as a
// forward from the HTTP/1.1 path). Its body was buffered whole by
// engine/h2 when it fits its MaxBodyBytes, else it is streamed as it
// comes (h2.Stream.BodyReader); the upstream's answer is relayed as it
// comes, held back by the stream's flow control.
type h2forward struct {
	f   *forward // the answer policy's view: cs, head, vary, fallback, status
	x   *h2conn
	st  *h2.Stream
	req *fasthttp.Request
	srv *upstream.Server
	// pickErr: no server was up when the stream was decided.
	pickErr error
	start   time.Time
	sent    int64
}

// forward starts st's exchange (on the loop: tl locked), req being its
// parsed head.
func (x *h2conn) forward(st *h2.Stream, req *httpparse.Request) {
	cs := x.cs
	s := cs.loop.srv
	f := &forward{s: s, g: cs.loop.group, cs: cs, c: x.c, head: isHead(req.Method), vary: cs.loop.match.Vary(), fallback: cs.fallbackFor()}
	f.start = time.Now()
	if cs.loop.alog != nil {
		f.info = cs.loop.ri.copy()
	}
	cs.loop.group = nil // the forward holds it; a reload may drop it
	hf := &h2forward{f: f, x: x, st: st, start: f.start}
	hf.srv, hf.pickErr = f.g.Pool.Pick()
	r := fasthttp.AcquireRequest()
	r.Header.DisableNormalizing()
	r.Header.DisableSpecialHeader()
	r.Header.SetMethodBytes(req.Method)
	r.SetRequestURIBytes(upstreamTarget(req))
	if hf.srv != nil {
		s.upstreamHeaders(fasthttpHeaders{&r.Header}, req, cs.ip, true, cs.proxy.xff, f.g, hf.srv.Addr)
	}
	switch {
	case st.BodyTooLarge:
		// Larger than engine/h2 buffers: the rest is read as it comes,
		// the client held back by the stream's window meanwhile.
		length := -1
		if st.ContentLength >= 0 {
			length = int(st.ContentLength)
		}
		timeout := f.g.BodyTimeout
		if timeout <= 0 {
			timeout = 10 * time.Second
		}
		r.SetBodyStream(st.BodyReader(timeout, f.g.MaxRequestBodyBytes), length)
		s.m.bodies[bodyStreamed].Inc()
	case len(st.Body) > 0:
		// The body is the stream's until it ends, which is after the
		// exchange.
		r.SetBodyStream(bytes.NewReader(st.Body), len(st.Body))
		s.m.bodies[bodyBuffered].Inc()
	}
	hf.req = r
	f.client = s.conns.client(cs.requestClient(req))
	s.workers.run(hf)
}

// run is the exchange, on a forward worker.
func (hf *h2forward) run() {
	f := hf.f
	s := f.s
	// A panic closes the connection, which ends the stream.
	defer s.recoverConn(atForward, hf.x.c, hf.x.cs, nil)
	defer fasthttp.ReleaseRequest(hf.req)
	if hf.pickErr != nil {
		s.m.forwarded[5].Inc()
		hf.failed(502, "no upstream server is available\n")
		return
	}
	srv := hf.srv
	f.server = srv.Addr
	um := f.g.metrics[srv]
	if !f.g.slots.take(f.client) {
		srv.Cancel()
		um.clientLimit.Inc()
		s.m.forwarded[4].Inc()
		hf.failed(429, "too many requests of this client are being forwarded\n")
		return
	}
	defer f.g.slots.put(f.client)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	resp.Header.SetNoDefaultContentType(true)
	start := time.Now()
	err := srv.Client.Do(hf.req, resp)
	f.upTime.Store(int64(time.Since(start)))
	srv.Done(err != nil && upstream.IsConnError(err))
	defer func() { s.m.fwdDur.Update(time.Since(start).Seconds()) }()
	if err != nil {
		hf.exchangeFailed(err, srv, um)
		return
	}
	um.ok.Inc()
	um.dur.Update(time.Since(start).Seconds())
	code := resp.StatusCode()
	f.upStatus.Store(int32(code))
	if c := code / 100; c >= 1 && c <= 5 {
		s.m.forwarded[c].Inc()
	}
	if a := f.fallback; a != nil {
		if a.fb.Applies(code) {
			if stream := resp.BodyStream(); stream != nil {
				io.CopyN(io.Discard, stream, maxFallbackDiscard)
				resp.CloseBodyStream()
			}
			hf.writeFallback()
			return
		}
		s.m.fallback[fallbackRelayed].Inc()
	}
	hf.relay(resp)
}

// relay sends the upstream's answer: its head by forward.answerHead's
// policy, then its body as it is read.
func (hf *h2forward) relay(resp *fasthttp.Response) {
	f := hf.f
	head, _, noBody := f.answerHead(resp.StatusCode(), resp.Header.StatusMessage(), resp.Header.All(), resp.Header.ContentLength())
	f.headSent.Store(int64(len(head))) // for the log's body bytes
	stream := resp.BodyStream()
	defer resp.CloseBodyStream()
	if noBody || stream == nil {
		body := resp.Body()
		if noBody {
			body = nil
		}
		hf.done(hf.st.AnswerHead(head, len(body) == 0), head, body)
		return
	}
	if err := hf.st.AnswerHead(head, false); err != nil {
		hf.done(err, head, nil)
		return
	}
	bufp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bufp)
	buf := (*bufp)[:answerChunk]
	hf.sent = int64(len(head))
	for {
		n, err := stream.Read(buf)
		if n > 0 {
			hf.sent += int64(n)
			if werr := hf.st.WriteData(buf[:n], false); werr != nil {
				hf.log()
				return // the client reset the stream or went
			}
		}
		if err == io.EOF {
			hf.st.WriteData(nil, true)
			hf.log()
			return
		}
		if err != nil {
			// The upstream died mid-answer: reset the stream, so the
			// client never takes a truncated answer for a whole one.
			f.s.log.Warn("upstream answer cut short", "err", err)
			hf.st.Abort()
			hf.log()
			return
		}
	}
}

// done sends body after a head sent with err, ending the stream, and logs.
func (hf *h2forward) done(err error, head, body []byte) {
	hf.sent = int64(len(head) + len(body))
	if err == nil && len(body) > 0 {
		hf.st.WriteData(body, true)
	}
	hf.log()
}

// failed answers an exchange that did not take place or failed, with the
// fallback rule's answer when status is one of its statuses.
func (hf *h2forward) failed(status int, msg string) {
	f := hf.f
	if a := f.fallback; a != nil {
		if a.fb.Applies(status) {
			hf.writeFallback()
			return
		}
		f.s.m.fallback[fallbackRelayed].Inc()
	}
	f.status.Store(int32(status))
	fields := f.cs.fields()
	if status == 503 || status == 429 {
		fields += "Retry-After: 1\r\n"
	}
	b := appendText(nil, status, fields, msg, f.head, f.s.date.get(), connDefault)
	hf.st.Answer(b)
	hf.sent = int64(len(b))
	hf.log()
}

func (hf *h2forward) writeFallback() {
	f := hf.f
	a := f.fallback
	a.answered = true
	a.fb.Hit()
	f.status.Store(int32(a.status))
	f.s.m.fallback[fallbackAnswered].Inc()
	hf.st.Answer(a.answer)
	hf.sent = int64(len(a.answer))
	hf.log()
}

// exchangeFailed answers 502, 503 or 504 as err says, as forward's does.
func (hf *h2forward) exchangeFailed(err error, srv *upstream.Server, um *upstreamMetrics) {
	f := hf.f
	switch {
	case errors.Is(err, h2.ErrBodyTooLarge):
		hf.failed(413, "request body too large\n")
		return
	case errors.Is(err, h2.ErrBodyTimeout):
		f.s.m.timeouts.body.Inc()
		hf.failed(408, "request body not received in time\n")
		return
	case errors.Is(err, h2.ErrStreamClosed):
		hf.st.Abort() // the client reset the stream while sending its body
		hf.log()
		return
	}
	status, msg, count := 502, "the upstream server could not be reached\n", um.failed
	var ne net.Error
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.Is(err, fasthttp.ErrNoFreeConns):
		status, msg, count = 503, "the upstream server is busy\n", um.poolFull
	case errors.As(err, &small):
		msg = "the upstream server sent an answer head too large\n"
	case errors.Is(err, fasthttp.ErrTimeout) || errors.As(err, &ne) && ne.Timeout() && !upstream.IsConnError(err):
		status, msg, count = 504, "the upstream server did not answer in time\n", um.timedOut
	}
	count.Inc()
	f.s.m.forwarded[5].Inc()
	f.upStatus.Store(int32(status))
	f.s.log.Warn("forwarding failed", "group", f.g.Name, "server", srv.Addr, "status", status, "err", err)
	hf.failed(status, msg)
}

// log writes the access log line, on the loop.
func (hf *h2forward) log() {
	f := hf.f
	l := f.cs.loop
	if l.alog == nil {
		return
	}
	f.sent.Store(hf.sent)
	tl := hf.x.c.tl
	tl.lock()
	f.logForwarded()
	tl.unlock()
}
