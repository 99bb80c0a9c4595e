package engine

import (
	"bytes"

	"github.com/panjf2000/gnet/v2"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/forward/exchange"
	"github.com/redirectd/redirectd/engine/h2"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// forward is a request forwarded upstream, a WebSocket tunnel or an ACME
// challenge as the connection holds it (conn.fwd): the exchange that
// drives it (package exchange) and what the engine keeps beside, the
// connection it answers, for which it implements exchange.Conn.
type forward struct {
	exchange.Forward
	cs *conn
	// x is the HTTP/2 connection of a forwarded stream, nil on HTTP/1.1.
	x *h2conn
	// info is the request for the access log, copied out of the loop's
	// buffer.
	info requestInfo
}

// newForward makes the forward of a request on cs, answered on c, going
// to g (nil for a challenge), as r says: newForward adds what every
// forward on cs shares (exchange.Request's Conn, C, Host, G and Own).
func (cs *conn) newForward(c gnet.Conn, g *group, r exchange.Request) *forward {
	f := &forward{cs: cs}
	r.Conn, r.C, r.Host = f, c, &cs.loop.srv.xhost
	r.Own = cs.fields()
	r.OwnHSTS = cs.tls && r.Own != ""
	if g != nil {
		r.G = &g.Group
	}
	f.Init(&r)
	if cs.loop.alog != nil {
		f.info = cs.loop.ri.copy()
	}
	return f
}

// startForward builds the upstream request for req (copying everything it
// needs, since req points into the loop's buffer) and starts it. buf holds
// what follows the head; startForward takes the body bytes in it and
// returns how many.
func (cs *conn) startForward(s *Server, req *httpparse.Request, buf []byte, closing bool) int {
	g := cs.loop.group
	f := cs.newForward(cs.c, g, exchange.Request{Closing: closing, HTTP10: req.Minor == 0, Head: isHead(req.Method),
		Vary:       cs.loop.match.Vary(), // the lookup of this request, just done (conn.answer)
		Fallback:   cs.fallbackFor(),
		PageStatus: cs.pageStatus,
		Client:     s.conns.client(cs.requestClient(req))})
	cs.pageStatus = 0
	r := cs.upstreamRequest(req, cs.https(req), g, f.Pick())
	if f.BodyStream(r, req.Chunked, req.ContentLength) && req.ExpectContinue {
		// The client waits for this before sending the body; fasthttp
		// cannot relay a 1xx, so the server answers it itself, as nginx
		// does when it reads a body.
		cs.loop.out = append(cs.loop.out, "HTTP/1.1 100 Continue\r\n\r\n"...)
	}
	cs.fwd = f
	return f.Begin(r, buf)
}

// startTunnel forwards a WebSocket upgrade (exchange.Forward.StartTunnel):
// the upgrade request is built here, with the headers every forward gets
// (forward.RequestHeaders) and the upgrade, since req points into the
// loop's buffer. It returns how many bytes of buf it took: none, what
// follows waits until the upstream answers.
func (cs *conn) startTunnel(s *Server, req *httpparse.Request, buf []byte) int {
	g := cs.loop.group
	upgrade, n := fw.UpgradeFields(req)
	f := cs.newForward(cs.c, g, exchange.Request{Closing: !req.KeepAlive || n != 1, HTTP10: req.Minor == 0, Tunnel: true})
	cs.fwd = f
	if n != 1 {
		// Which one would the upstream act on? Servers and proxies
		// disagree (redirectd used to send all and check the last), so
		// the request is refused.
		s.m.answer(outClientError, 400)
		f.AnswerError(400, "several Upgrade fields\n")
		return 0
	}
	srv := f.Pick()
	if srv == nil {
		f.StartTunnel(nil)
		return 0
	}
	head := fw.RawHead(make([]byte, 0, 512))
	head = append(append(append(append(head, req.Method...), ' '), cs.upstreamTarget(req)...), " HTTP/1.1\r\n"...)
	cs.upstreamHeaders(&head, req, cs.https(req), g, srv.Addr)
	head.Add([]byte("Upgrade"), upgrade)
	head.Add([]byte("Connection"), []byte("Upgrade"))
	head = append(head, "\r\n"...)
	f.StartTunnel(head)
	return 0
}

// forward starts st's exchange (on the loop: tl locked), req being its
// parsed head (exchange.Stream).
func (x *h2conn) forward(st *h2.Stream, req *httpparse.Request) {
	cs := x.cs
	s := cs.loop.srv
	g := cs.loop.group
	f := cs.newForward(x.c, g, exchange.Request{Head: isHead(req.Method), Vary: cs.loop.match.Vary(),
		Fallback: cs.fallbackFor(), PageStatus: cs.pageStatus, Client: s.conns.client(cs.requestClient(req))})
	cs.pageStatus = 0
	f.x = x
	cs.loop.group = nil // the forward holds it; a reload may drop it
	r := cs.upstreamRequest(req, true, g, f.Pick())
	s.workers.Run(exchange.NewStream(&f.Forward, st, r))
}

// whileForwarding handles bytes that arrive while a request is forwarded
// (exchange.Forward.WhileForwarding).
func (cs *conn) whileForwarding(c gnet.Conn, buf []byte) gnet.Action {
	return cs.fwd.WhileForwarding(c, buf)
}

// checkForward runs from the deadline sweep for a connection whose request
// is being forwarded (exchange.Forward.Check: send_timeout, body_timeout,
// body_min_rate, tunnel_idle_timeout).
func (cs *conn) checkForward(now int64) { cs.fwd.Check(now) }

// Now is the coarse clock (exchange.Conn).
func (f *forward) Now() int64 { return f.cs.loop.srv.clock.now() }

// AppendText appends the server's own text answer (exchange.Conn).
func (f *forward) AppendText(dst []byte, status int, fields, msg string, head, http10, closing bool) []byte {
	return appendText(dst, status, fields, msg, head, f.cs.loop.srv.date.get(), connFieldFor(http10, closing))
}

// Released runs on the loop once the answer is written (exchange.Conn):
// it closes the connection, or serves the requests that came meanwhile
// (new bytes would call OnTraffic anyway, so the loop is only woken for
// bytes already buffered).
func (f *forward) Released(c gnet.Conn, closeConn bool) {
	cs := f.cs
	if cs.fwd == f {
		cs.fwd = nil
	}
	f.Log()
	switch {
	case closeConn || cs.loop.srv.draining.Load():
		c.Close()
	case c.InboundBuffered() > 0:
		c.Wake(nil)
	}
}

// Log logs a forwarded request once its answer is written (exchange.Conn):
// on the loop, or, for an HTTP/2 stream, under the loop's lock.
func (f *forward) Log() {
	l := f.cs.loop
	if l.alog == nil {
		return
	}
	if f.x != nil {
		tl := f.x.c.Loop()
		tl.Lock()
		defer tl.Unlock()
	}
	r := f.Record()
	l.log(f.cs.ip, &f.info, logged{status: r.Status, bytes: r.Bytes, bodyBytes: r.BodyBytes,
		upstream: r.Upstream, upStatus: r.UpstreamStatus, upTime: r.UpstreamTime, start: r.Start,
		rule: r.Rule, location: r.Location})
}

// Refused leaves the connection to a lingering read once the loop
// answered the request itself (exchange.Conn).
func (f *forward) Refused(c gnet.Conn, status, unread int, answered bool) gnet.Action {
	cs, s := f.cs, f.cs.loop.srv
	if answered {
		s.m.answer(outClientError, status)
	}
	cs.fwd = nil
	return cs.startLinger(c, s.clock.now(), unread)
}

// Close closes the connection from its loop (exchange.Conn).
func (f *forward) Close() { f.cs.close() }

// exchangeBoundaries are the engine's names of exchange.Boundary's.
var exchangeBoundaries = [...]boundary{exchange.AtForward: atForward, exchange.AtTunnel: atTunnel, exchange.AtCallback: atCallback}

// Panicked logs, counts and closes after a panic an exchange recovered
// (exchange.Conn).
func (f *forward) Panicked(at exchange.Boundary, v any) {
	var c gnet.Conn = f.cs.c
	if f.x != nil {
		c = f.x.c
	}
	f.cs.loop.srv.panicked(exchangeBoundaries[at], v, c, f.cs, nil)
}

// TestPanic calls the test hook (exchange.Conn, SetPanicHook).
func (f *forward) TestPanic(at exchange.Boundary) {
	f.cs.loop.srv.testPanic(exchangeBoundaries[at], nil)
}

// exchangeHost is what the server's exchanges share (exchange.Host).
func (s *Server) exchangeHost() exchange.Host {
	m := s.m
	return exchange.Host{Workers: s.workers, Log: s.log, Stopping: s.stopping, Metrics: exchange.Metrics{
		Forwarded: m.forwarded, Fallback: m.fallback, Bodies: m.bodies,
		BodyTimeouts: m.timeouts.body, BodyRateTimeouts: m.timeouts.bodyRate, SendTimeouts: m.timeouts.send, TunnelTimeouts: m.timeouts.tunnel,
		Duration: m.fwdDur, FieldsDropped: m.fieldsDropped,
	}}
}

// startFallback readies the answer of the fallback rule m matched for
// req, to be written if the upstream's answer lets it; the request is
// then forwarded as a miss is (package exchange's fallback.go).
func (cs *conn) startFallback(out []byte, req *httpparse.Request, rules *matcher.Set, fb *matcher.Fallback, date []byte) ([]byte, verdict) {
	l := cs.loop
	if max := l.group.MaxRequestBodyBytes; max > 0 && req.ContentLength > max {
		return appendTextWith(out, 413, cs.fields(), rules.Headers(), "request body too large\n", false, date, connClose),
			verdict{status: 413, outcome: outClientError, closing: true, linger: true}
	}
	if fw.IsWebSocket(req) {
		// A tunnel relays whatever the upstream answers: there is no
		// answer to replace once the connection is upgraded.
		return out, verdict{upstream: true}
	}
	if l.dry {
		return out, verdict{upstream: true} // the answer is readied when it is decided
	}
	m := &l.match
	a := &exchange.FallbackAnswer{FB: fb, Status: m.Status(), Rule: m.Source()}
	if matcher.HasLocation(a.Status) {
		a.Answer = cs.appendRedirect(nil, m, req, ruleHeaders(m, rules), date, connDefault)
		if l.alog != nil {
			a.Location = m.AppendLocation(nil, req.Query)
		}
	} else {
		a.Answer = appendTextVary(nil, a.Status, m.Vary(), cs.fields(), ruleHeaders(m, rules), matcher.StatusText(a.Status), isHead(req.Method), date, connDefault)
	}
	a.HeadEnd = bytes.Index(a.Answer, []byte("\r\n\r\n")) + 2
	cs.fallback = a
	return out, verdict{upstream: true}
}

// fallbackFor takes the answer startFallback readied for the request now
// being forwarded, if any.
func (cs *conn) fallbackFor() *exchange.FallbackAnswer {
	a := cs.fallback
	cs.fallback = nil
	return a
}

func init() {
	metricHelp["redirectd_fallback_total"] = "Requests that matched a fallback rule and were forwarded, by result: the rule answered (the upstream answered one of its fallback_status) or the upstream's answer was relayed. They are counted as forwarded in redirectd_requests_total too."
}

// newFallbackMetrics makes the fallback counters.
func (m *serverMetrics) newFallbackMetrics() {
	m.fallback[exchange.FallbackAnswered] = m.set.NewCounter(`redirectd_fallback_total{result="answered"}`)
	m.fallback[exchange.FallbackRelayed] = m.set.NewCounter(`redirectd_fallback_total{result="relayed"}`)
}
