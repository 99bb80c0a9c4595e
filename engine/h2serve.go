package engine

import (
	"strconv"
	"time"

	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/tlsport"
	"github.com/redirectd/redirectd/httpparse"
)

// h2conn answers the streams of one TLS connection that negotiated h2
// (engine/h2 does the framing). Each stream becomes the HTTP/1.1 head it
// stands for (RFC 9113 8.3.1: :method, :path and :authority as the
// request line and Host), parsed by httpparse and decided by conn.answer
// exactly as a request on the HTTP/1.1 path is: the same checks, rules,
// conditions, answers, headers, HSTS, access log and metrics. The answer
// bytes that path writes are framed by h2.Stream.Answer. One decision,
// two framings: nothing of the decision is written twice.
type h2conn struct {
	c  *tlsport.Conn
	s  *Server
	cs *conn
	// head is the stream's request as an HTTP/1.1 head; out a copy of its
	// answer, made under the loop's lock and framed after it. Both are
	// the connection goroutine's.
	head, out []byte
	// reset: the answer is none (return 444); the stream is reset, as
	// the connection is closed on HTTP/1.1.
	reset bool
}

// ServeH2 serves c as HTTP/2 on fresh goroutines, the handshake's stack
// left behind, until it ends; the last one tears c down
// (tlsport.Handler).
func (th tlsHandler) ServeH2(c *tlsport.Conn) {
	cs, _ := c.Context().(*conn)
	if cs == nil {
		c.Teardown()
		return
	}
	s := th.srv
	c.Loop().Lock()
	cs.h2 = true
	c.Loop().Unlock()
	o := s.http2Options()
	if s.opts.TLS.HTTP2.SendTimeout <= 0 {
		o.SendTimeout = s.sendTimeout() // the HTTP/1.1 path's, which a reload may change
	}
	x := &h2conn{c: c, s: s, cs: cs}
	s.m.h2conns.Inc()
	x.run(h2.NewConn(c.TLS(), x, o, c.Closing), false)
}

// http2Options returns the HTTP/2 bounds that apply for the TLS
// listener: those [tls] sets, the server's timeouts where it sets none
// (idle_timeout, and header_timeout for the preface and for a body
// dropped after an answer from its head), and h2's defaults for the
// rest. Only SendTimeout is set per connection (ServeH2), as the
// HTTP/1.1 path's send_timeout follows reloads.
func (s *Server) http2Options() h2.Options {
	var o h2.Options
	if s.opts.TLS != nil {
		o = s.opts.TLS.HTTP2
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = s.opts.IdleTimeout
	}
	if o.PrefaceTimeout <= 0 {
		o.PrefaceTimeout = s.opts.HeaderTimeout
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = s.opts.HeaderTimeout
	}
	return o.WithDefaults()
}

// run runs hc's Serve on a fresh goroutine, and again on another each
// time it goes quiet (woken): the goroutine that waits for an idle
// connection's next frame waits on the raw socket (WaitReadable) with
// the 2 KiB stack it started with, holding no buffer, not with a stack
// grown by serving (engine/h2/buffers.go). x's buffers are let go while
// it waits.
func (x *h2conn) run(hc *h2.Conn, woken bool) {
	c := x.c
	c.Go("h2 connection", func() {
		if woken {
			c.WaitReadable()
		}
		quiet, err := hc.Serve()
		if quiet {
			x.head, x.out = nil, nil
			x.run(hc, true)
			return
		}
		if err != nil {
			x.s.log.Debug("HTTP/2 connection ended", "client", c.RemoteAddr().String(), "err", err)
		}
		c.SetPeerClosed(hc.PeerClosed())
		c.Teardown()
	})
}

// Serve answers st (h2.Handler), or starts its forward.
func (x *h2conn) Serve(st *h2.Stream) {
	x.head = appendH2Head(x.head[:0], st, !st.BodyTooLarge && !st.HeadOnly)
	if x.decide(st) {
		if x.reset {
			x.reset = false
			st.Abort()
			return
		}
		st.Answer(x.out)
	}
}

// decide decides st's answer into x.out, or starts its forward (false).
// It runs on the connection's goroutine, with the tlsport.Loop locked while it
// uses the loop's state. A panic closes the connection; the stream gets a
// 500 (x.out is left empty).
func (x *h2conn) decide(st *h2.Stream) (local bool) {
	tl := x.c.Loop()
	tl.Lock()
	defer tl.Unlock()
	x.out = x.out[:0]
	defer x.s.recoverConn(atTraffic, x.c, x.cs, nil)
	local = true
	cs := x.cs
	l := cs.loop
	s := l.srv
	s.m.h2streams.Inc()
	cs.active = s.clock.now()
	cs.served++
	start := time.Now()
	l.readStart = start
	rules, date := s.rules.Load(), s.date.get()
	out := l.out[:0]
	req := &l.req
	var v verdict
	n, err := httpparse.Parse(x.head, req, &s.limits)
	switch {
	case st.HeadersTooLarge:
		l.ri.reset()
		l.ri.start = start
		out = appendText(out, 431, cs.fields(), "request header fields too large\n", false, date, connDefault)
		v = verdict{status: 431, outcome: outClientError}
	case err != nil || n != len(x.head):
		l.ri.reset()
		l.ri.start = start
		out, v = appendParseError(out, err, cs.fields(), date)
	default:
		if l.alog != nil {
			l.ri.from(req, l.fieldNames)
			l.ri.client = cs.requestClient(req)
			l.ri.start = start
			l.ri.scheme = "https"
			l.ri.proto = "HTTP/2.0" // as nginx logs $server_protocol
		}
		out, v = cs.answer(out, req, rules, date, false)
		switch {
		case v.upstream:
			x.forward(st, req)
			return false
		case v.closing && v.status == 444 && len(out) == 0:
			x.reset = true
		case v.challenge:
			// Not reached: challenges are answered on the plain port only.
			out = appendText(out, 404, cs.fields(), "not found\n", false, date, connDefault)
			v = verdict{status: 404, outcome: outMiss}
		}
	}
	s.m.bytesIn.Add(len(x.head))
	s.m.bytesOut.Add(len(out))
	cs.record(&v, out)
	x.out = append(x.out[:0], out...)
	return true
}

// appendH2Head appends st's request as an HTTP/1.1 head. engine/h2 has
// refused the fields HTTP/2 forbids and any value holding CR, LF or NUL,
// so no field can end a line early here; the rest (the target's bytes,
// the Host, the field values) httpparse checks as it checks a head read
// from the plain port. Cookie fields, which HTTP/2 sends one per cookie,
// are joined with "; " (RFC 9113 8.2.3). The body's length is the one
// received when whole says st.Body is all of it, else the one the
// content-length field declares, if any.
func appendH2Head(dst []byte, st *h2.Stream, whole bool) []byte {
	target := st.Path
	if string(st.Method) == "CONNECT" {
		target = st.Authority // refused by the parser, as CONNECT is on HTTP/1.1
	}
	dst = append(dst, st.Method...)
	dst = append(dst, ' ')
	dst = append(dst, target...)
	dst = append(dst, " HTTP/1.1\r\n"...)
	host := st.Authority
	if host == nil {
		for _, f := range st.Fields {
			if string(f.Name) == "host" {
				host = f.Value
				break
			}
		}
	}
	if host != nil {
		dst = append(append(append(dst, "Host: "...), host...), "\r\n"...)
	}
	cookies := false
	for _, f := range st.Fields {
		switch string(f.Name) {
		case "host", "content-length":
			continue
		case "cookie":
			cookies = true
			continue
		}
		dst = append(append(append(append(dst, f.Name...), ": "...), f.Value...), "\r\n"...)
	}
	if cookies {
		dst = append(dst, "cookie: "...)
		first := true
		for _, f := range st.Fields {
			if string(f.Name) == "cookie" {
				if !first {
					dst = append(dst, "; "...)
				}
				first = false
				dst = append(dst, f.Value...)
			}
		}
		dst = append(dst, "\r\n"...)
	}
	switch {
	case !whole && st.ContentLength >= 0:
		dst = appendContentLength(dst, st.ContentLength) // to come, streamed (exchange.Stream) or dropped
	case whole && (len(st.Body) > 0 || st.ContentLength >= 0):
		dst = appendContentLength(dst, int64(len(st.Body)))
	}
	return append(dst, "\r\n"...)
}

func appendContentLength(dst []byte, n int64) []byte {
	dst = append(dst, "Content-Length: "...)
	return append(strconv.AppendInt(dst, n, 10), "\r\n"...)
}
