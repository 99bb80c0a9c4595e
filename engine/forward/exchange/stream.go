package exchange

import (
	"bytes"
	"errors"
	"io"
	"time"

	"github.com/valyala/fasthttp"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/upstream"
)

// Stream is one HTTP/2 stream forwarded to the upstream over HTTP/1.1
// (the same pool, header policy, fallback rules and answer policy as a
// forward from the HTTP/1.1 path). Its body was buffered whole by
// engine/h2 when it fits its MaxBodyBytes, else it is streamed as it
// comes (h2.Stream.BodyReader); the upstream's answer is relayed as it
// comes, held back by the stream's flow control.
type Stream struct {
	f   *Forward // the answer policy's view: head, vary, fallback, status
	st  *h2.Stream
	req *fasthttp.Request
	srv *upstream.Server
	// pickErr: no server was up when the stream was decided.
	pickErr error
	start   time.Time
	sent    int64
}

// NewStream readies the exchange of st through f (Init, Pick: the
// engine's, on the loop), its upstream request r lacking the body.
func NewStream(f *Forward, st *h2.Stream, r *fasthttp.Request) *Stream {
	hf := &Stream{f: f, st: st, start: f.start, srv: f.srv, pickErr: f.pickErr}
	switch {
	case st.BodyTooLarge || st.HeadOnly:
		// HeadOnly: decided from its head as a local answer, the rules
		// changed before it was answered.
		// Larger than engine/h2 buffers: the rest is read as it comes,
		// the client held back by the stream's window meanwhile.
		length := -1
		if st.ContentLength >= 0 {
			length = int(st.ContentLength)
		}
		timeout := f.g.BodyTimeout
		if timeout <= 0 {
			timeout = fw.DefaultBodyTimeout
		}
		r.SetBodyStream(st.BodyReader(timeout, f.g.MaxRequestBodyBytes), length)
		f.m.Bodies[BodyStreamed].Inc()
	case len(st.Body) > 0:
		// The body is the stream's until it ends, which is after the
		// exchange.
		r.SetBodyStream(bytes.NewReader(st.Body), len(st.Body))
		f.m.Bodies[BodyBuffered].Inc()
	}
	hf.req = r
	return hf
}

// Run is the exchange, on a forward worker.
func (hf *Stream) Run() {
	f := hf.f
	// A panic closes the connection, which ends the stream.
	defer f.recoverAt(AtForward)
	defer fasthttp.ReleaseRequest(hf.req)
	if hf.pickErr != nil {
		f.noServer(hf)
		return
	}
	srv := hf.srv
	f.server = srv.Addr
	um := f.g.Servers[srv]
	if !f.takeSlot(hf, srv, um) {
		return
	}
	defer f.g.Slots.Put(f.client)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	f.exchangeAndAnswer(hf, srv, um, hf.req, resp)
}

// relay sends the upstream's answer: its head by Forward.answerHead's
// policy, then its body as it is read.
func (hf *Stream) relay(resp *fasthttp.Response) {
	f := hf.f
	code, msg := f.upstreamStatus(resp)
	head, _, noBody := f.answerHead(code, msg, resp.Header.All(), resp.Header.ContentLength())
	f.headSent.Store(int64(len(head))) // for the log's body bytes
	stream := resp.BodyStream()
	defer resp.CloseBodyStream()
	defer f.counted(true) // whole, or the client went: what is not cut short
	if noBody || stream == nil {
		body := resp.Body()
		if noBody {
			body = nil
		}
		f.counted(true)
		hf.done(hf.st.AnswerHead(head, len(body) == 0), head, body)
		return
	}
	bufp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bufp)
	buf := (*bufp)[:answerChunk]
	if length := resp.Header.ContentLength(); length >= 0 && length <= answerChunk {
		// A small answer of known length is read before its head is
		// sent, as on HTTP/1.1: cut short, the stream gets 502.
		body := buf[:length]
		if _, err := io.ReadFull(stream, body); err != nil {
			f.cutShort(err, true)
			hf.answerError(502, msgCutShort)
			return
		}
		f.counted(true)
		hf.done(hf.st.AnswerHead(head, length == 0), head, body)
		return
	}
	if err := hf.st.AnswerHead(head, false); err != nil {
		hf.done(err, head, nil)
		return
	}
	hf.sent = int64(len(head))
	for {
		n, err := stream.Read(buf)
		if n > 0 {
			hf.sent += int64(n)
			if werr := hf.st.WriteData(buf[:n], false); werr != nil {
				if errors.Is(werr, h2.ErrSendTimeout) {
					f.m.SendTimeouts.Inc()
				}
				hf.log()
				return // the client reset the stream, went, or took nothing for send_timeout
			}
		}
		if err == io.EOF {
			f.counted(true)
			hf.st.WriteData(nil, true)
			hf.log()
			return
		}
		if err != nil {
			// The upstream died mid-answer: reset the stream, so the
			// client never takes a truncated answer for a whole one.
			f.cutShort(err, false)
			hf.st.Abort()
			hf.log()
			return
		}
	}
}

// done sends body after a head sent with err, ending the stream, and logs.
func (hf *Stream) done(err error, head, body []byte) {
	hf.sent = int64(len(head) + len(body))
	if err == nil && len(body) > 0 {
		hf.st.WriteData(body, true)
	}
	hf.log()
}

// answerError answers status with msg (failAnswerer).
func (hf *Stream) answerError(status int, msg string) {
	f := hf.f
	f.status.Store(int32(status))
	b := f.conn.AppendText(nil, status, f.errorFields(status), msg, f.head, false, false)
	hf.st.Answer(b)
	hf.sent = int64(len(b))
	hf.log()
}

// writeFallback answers with the fallback rule's answer (failAnswerer).
func (hf *Stream) writeFallback() {
	a := hf.f.fallbackAnswered()
	hf.st.Answer(a.Answer)
	hf.sent = int64(len(a.Answer))
	hf.log()
}

// exchangeFailed answers an exchange that failed with err: 413 or 408 for
// the stream's body, nothing for a stream the client reset, else as
// Forward.upstreamFailed decides for both paths.
func (hf *Stream) exchangeFailed(err error, srv *upstream.Server, um *ServerMetrics) {
	f := hf.f
	switch {
	case errors.Is(err, h2.ErrBodyTooLarge):
		f.fail(hf, 413, "request body too large\n")
	case errors.Is(err, h2.ErrBodyTimeout):
		f.m.BodyTimeouts.Inc()
		f.fail(hf, 408, "request body not received in time\n")
	case errors.Is(err, h2.ErrStreamClosed):
		hf.st.Abort() // the client reset the stream while sending its body
		hf.log()
	default:
		f.upstreamFailed(hf, err, srv, um)
	}
}

// log writes the access log line (Conn.Log takes the loop's lock).
func (hf *Stream) log() {
	hf.f.sent.Store(hf.sent)
	hf.f.conn.Log()
}
