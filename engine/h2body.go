package engine

import (
	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/h2bridge"
	"github.com/redirectd/redirectd/httpparse"
)

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
