package engine

import (
	"time"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/engine/h2bridge"
	"github.com/redirectd/redirectd/engine/tlsport"
	"github.com/redirectd/redirectd/httpparse"
)

// h2conn is the engine's side of a TLS connection that negotiated h2
// (h2bridge.Conn): package h2bridge hands it each stream as the HTTP/1.1
// head it stands for, parsed by httpparse and decided by conn.answer
// exactly as a request on the HTTP/1.1 path is.
type h2conn struct {
	c  *tlsport.Conn
	s  *Server
	cs *conn
	// bridge is package h2bridge's state for the connection, held here
	// so that an idle connection keeps one 112-byte object rather than
	// a 24-byte and a 96-byte one in size classes that a handshake's
	// short-lived objects churn, whose spans they keep in use
	// (h2bridge.Bridge; TestH2ConnOneObject).
	bridge h2bridge.Bridge
}

var _ h2bridge.Conn = (*h2conn)(nil)

// ServeH2 serves c as HTTP/2 (package h2bridge) until it ends
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
	s.m.h2conns.Inc()
	x := &h2conn{c: c, s: s, cs: cs}
	x.bridge.Serve(c, x, o, s.log)
}

// http2Options returns the HTTP/2 bounds that apply for the TLS
// listener (h2bridge.Options): those [tls] sets, else the server's
// idle_timeout and header_timeout, else h2's defaults.
func (s *Server) http2Options() h2.Options {
	var o h2.Options
	if s.opts.TLS != nil {
		o = s.opts.TLS.HTTP2
	}
	return h2bridge.Options(o, s.opts.IdleTimeout, s.opts.HeaderTimeout)
}

// Decide decides st, head being its request as HTTP/1.1
// (h2bridge.Conn), or starts its forward. It runs with the tlsport.Loop
// locked. A panic closes the connection; the stream gets a 500 (no
// answer).
func (x *h2conn) Decide(st *h2.Stream, head []byte) (answer []byte, d h2bridge.Decision) {
	defer x.s.recoverConn(atTraffic, x.c, x.cs, nil)
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
	n, err := httpparse.Parse(head, req, &s.limits)
	switch {
	case st.HeadersTooLarge:
		l.ri.reset()
		l.ri.start = start
		out = appendText(out, 431, cs.fields(), "request header fields too large\n", false, date, connDefault)
		v = verdict{status: 431, outcome: outClientError}
	case err != nil || n != len(head):
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
			return nil, h2bridge.Forwarded
		case v.closing && v.status == 444 && len(out) == 0:
			d = h2bridge.Reset
		case v.challenge:
			// Not reached: challenges are answered on the plain port only.
			out = appendText(out, 404, cs.fields(), "not found\n", false, date, connDefault)
			v = verdict{status: 404, outcome: outMiss}
		}
	}
	s.m.bytesIn.Add(len(head))
	s.m.bytesOut.Add(len(out))
	cs.record(&v, out)
	return out, d
}

// NeedsBody (h2bridge.Conn, for h2.HeadDecider) tells engine/h2 whether
// a stream whose body is still to come needs it: only a forward does. A redirect, a 404 or
// any other local answer is decided from the head, as on the HTTP/1.1
// path, and the body dropped as it comes. The decision is conn.answer's
// own, made with the loop's dry set, so that nothing is counted or
// logged twice; Decide then decides the stream for real. A forward's body
// is buffered under its group's body_timeout and body_min_rate, as
// the HTTP/1.1 path's (exchange's rateDeadline).
func (x *h2conn) NeedsBody(head, scratch []byte) (b h2bridge.Body, grown []byte) {
	grown = scratch
	defer x.s.recoverConn(atTraffic, x.c, x.cs, nil)
	cs := x.cs
	l := cs.loop
	s := l.srv
	req := &l.req
	if n, err := httpparse.Parse(head, req, &s.limits); err != nil || n != len(head) {
		return b, grown // a 400 of the head's
	}
	// The dry flag is the loop's, shared by its every connection: reset
	// by a defer, so that a panic recovered here cannot leave the loop
	// deciding every later request dry (uncounted, unlogged).
	l.dry = true
	defer func() { l.dry = false }()
	s.testPanic(atTraffic, head)
	out, v := cs.answer(scratch[:0], req, s.rules.Load(), s.date.get(), false)
	grown = out[:0]
	g := l.group
	l.group = nil // Decide picks it again
	if !v.upstream {
		return b, grown
	}
	b = h2bridge.Body{Need: true, Timeout: fw.DefaultBodyTimeout, MinRate: fw.DefaultBodyMinRate}
	if g != nil {
		b.Timeout, b.MinRate = g.BodyTimeout, g.BodyMinRate // both defaulted by SetUpstreams
	}
	return b, grown
}

// TakeBody and PutBody (h2bridge.Conn, for h2.BodyBudget) count the bodies engine/h2
// buffers for one client across all its connections, against
// [tls]'s HTTP2.MaxClientBodyBytes: past it a stream's body is streamed
// to the upstream as it comes, held back by the stream's window, rather
// than buffered.
func (x *h2conn) TakeBody(n int) bool {
	s := x.s
	if !x.cs.ip.IsValid() {
		return true
	}
	return s.h2bodies.takeN(s.conns.client(x.cs.ip), n)
}

func (x *h2conn) PutBody(n int) {
	s := x.s
	if x.cs.ip.IsValid() {
		s.h2bodies.putN(s.conns.client(x.cs.ip), n)
	}
}

// initH2Bodies readies the per-client count of buffered HTTP/2 bodies.
func (s *Server) initH2Bodies() {
	s.h2bodies.init(s.http2Options().MaxClientBodyBytes)
}
