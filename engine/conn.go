package engine

import (
	"net/netip"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/forward/exchange"
	"github.com/redirectd/redirectd/engine/tlsport"
	"github.com/redirectd/redirectd/httpparse"
)

// conn is the state of one client connection, owned by its loop.
type conn struct {
	c    gnet.Conn
	loop *loop
	idx  int // position in loop.conns
	ip   netip.Addr
	// The bools sit together, so that a conn fits the 352-byte size
	// class (TestConnSize).
	//
	// tls: the connection came through the TLS listener (tlsport.Conn); h2:
	// it negotiated HTTP/2, whose streams engine/h2 times out itself.
	tls, h2 bool
	// closing is set once the connection was asked to close: a TLS
	// connection closes on its own goroutine, after the sweep that closed
	// it, and a sweep before then must not count its timeout again.
	closing bool
	// shared is set once a goroutine off the loop may hold the conn (a
	// forward, a tunnel, a challenge): it is then not reused (loop.free).
	shared bool
	// local is the address the connection was accepted on, for
	// absolute_redirect's port and its host when a request names none.
	local netip.AddrPort
	// proxy is what the peer is trusted with (client.go).
	proxy proxyConn
	// discard counts request body bytes still to be skipped: a body sent
	// with a request answered locally is not needed, but its bytes come
	// before the next request.
	discard int64
	// active is the coarse time of the last bytes received, headStart that
	// of the first byte of the partial head now buffered (0: none).
	active, headStart int64
	// firstRead is when the read that brought the partial head's first
	// byte began, with an access log (zero: not known): its request's
	// duration counts from there.
	firstRead time.Time
	// answered is set when the last read completed at least one request,
	// so a partial head after it starts its own header clock; served
	// counts the requests answered on the connection.
	answered bool
	served   int
	// lingerUntil is non-zero while the connection is closing lingeringly:
	// the answer is sent and what arrives is dropped until this time.
	lingerUntil int64
	lingerRead  int
	// fwd is the request being forwarded upstream, if any: requests after
	// it wait in the buffer until its answer is written, so answers keep
	// request order.
	fwd *forward
	// head is where the parse of a partial head stopped, so that the next
	// read scans only the bytes after it (a head dribbled a byte per
	// segment would otherwise be parsed from its start once per byte).
	// It describes the bytes at the start of the connection's buffer: it
	// is zero whenever those are not a partial head that serve left
	// there, as ParseResume sets it after a whole head or an error.
	head httpparse.Progress
	// partial holds a partial head moved out of gnet's buffer, with the
	// bytes of each later read appended, until the head is complete.
	// gnet's Peek copies everything buffered into a freshly allocated
	// buffer on every read while bytes of an earlier read are still in
	// its buffer, so a 73 KiB head sent a byte per segment was copied
	// whole 73,000 times. Only without an upstream: a
	// forward or a tunnel reads what follows its head from gnet's buffer.
	partial []byte
	// fallback is the answer of the fallback rule the request being
	// started matched, taken by startForward (forwarding.go).
	fallback *exchange.FallbackAnswer
	// pageStatus is the status an error page gives the upstream's
	// answer to the request being started (0: its own), taken by
	// startForward (locations_intercept.go).
	pageStatus int
}

// input returns the bytes serve works on: buf, what gnet holds, after the
// partial head held in cs.partial, if any. While it holds one, gnet holds
// only the bytes of the current read (hold moved the rest out), so each
// read costs a copy of its own bytes.
func (cs *conn) input(c gnet.Conn, buf []byte) []byte {
	if len(cs.partial) == 0 {
		return buf
	}
	cs.partial = append(cs.partial, buf...)
	c.Discard(len(buf))
	return cs.partial
}

// hold keeps the partial head at in[used:], in being what input returned
// and gnet having discarded used bytes of it, for the next read.
func (cs *conn) hold(c gnet.Conn, in []byte, used int) {
	switch {
	case len(cs.partial) > 0:
		if used > 0 {
			cs.partial = cs.partial[:copy(cs.partial, in[used:])]
		}
	case !cs.loop.srv.forwarding():
		cs.partial = append(cs.partial[:0], in[used:]...)
		c.Discard(len(in) - used)
	}
}

// release lets go of the partial head held, once serve has used it all.
func (cs *conn) release() {
	if cap(cs.partial) > maxKeptPartial {
		cs.partial = nil
	} else {
		cs.partial = cs.partial[:0]
	}
}

// result says what happens to a connection after serve's answers.
type result uint8

const (
	keepOpen result = iota
	// closeNow: the client sent nothing more; close after the answers.
	closeNow
	// closeLinger: the client may still be sending (a body, more
	// requests); close after a lingering read.
	closeLinger
)

// serve answers the complete requests at the start of buf into the loop's
// output buffer. It returns how many bytes of buf it consumed and what to
// do with the connection once the answers are written.
//
// It is the parse loop: framing and the connection's fate are decided
// here, the answer to each request by answer, and every answer the loop
// writes is counted and logged by record. It is long because the loop's
// state (the output buffer, the offset, the fate so far) is shared by
// every step of it; split up, each step would take and return it all on
// the path that answers every request.
func (cs *conn) serve(buf []byte, s *Server) (used int, res result) {
	l := cs.loop
	out := l.out[:0]
	l.answers = 0
	rules := s.rules.Load()
	date := s.date.get()
	var tally answerTally // flushed at each return
	// Read once per read: a drain that begins while one is served
	// closes the connection after the next read's answers.
	draining := s.draining.Load()
	for used < len(buf) {
		if cs.discard > 0 {
			n := min(cs.discard, int64(len(buf)-used))
			cs.discard -= n
			used += int(n)
			continue
		}
		req := &l.req
		n, err := httpparse.ParseResume(buf[used:], req, &s.limits, &cs.head)
		if err != nil {
			mark := len(out)
			var v verdict
			out, v = appendParseError(out, err, cs.fields(), date)
			// The request's fields are not to be trusted after an error.
			l.ri.reset()
			l.ri.start = cs.requestStart(used)
			cs.recordIn(&tally, &v, out[mark:])
			res = closeLinger
			break
		}
		if n == 0 {
			break
		}
		used += n
		cs.answered = true
		cs.served++
		l.answers++
		closing := !req.KeepAlive
		switch {
		case req.Chunked:
			// The body's end is only known by decoding it; the answer
			// closes, and the body is dropped by the lingering read.
			closing, res = true, closeLinger
		case req.ContentLength > int64(len(buf)-used):
			// A body still on its way: rather than wait for it, answer,
			// close, and drop it while lingering.
			closing, res = true, closeLinger
		case req.ContentLength > 0:
			cs.discard = req.ContentLength
		}
		if draining {
			closing = true // answer, then let the client reconnect elsewhere
		}
		if l.alog != nil {
			l.ri.from(req, l.fieldNames)
			l.ri.client = cs.requestClient(req) // client.go
			l.ri.start = cs.requestStart(used - n)
			l.ri.scheme = "http"
			if cs.tls {
				l.ri.scheme = "https"
			}
		}
		mark := len(out)
		var v verdict
		out, v = cs.answer(out, req, rules, date, closing)
		if v.challenge {
			// Answered off the loop; what follows waits, as behind a
			// forward. A body (there should be none) is skipped.
			l.out = out
			tally.flush()
			cs.shared = true
			cs.startChallenge(s, req, closing || res == closeLinger)
			return used, keepOpen
		}
		if v.upstream {
			// The body is the upstream's: undo the local skipping.
			cs.discard = 0
			l.out = out
			tally.flush()
			cs.shared = true
			if fw.IsWebSocket(req) {
				used += cs.startTunnel(s, req, buf[used:])
			} else {
				used += cs.startForward(s, req, buf[used:], !req.KeepAlive)
			}
			l.group = nil // the forward holds it; a reload may drop it
			return used, keepOpen
		}
		cs.recordIn(&tally, &v, out[mark:])
		if v.linger {
			res = closeLinger
			break
		}
		if res == closeLinger {
			break
		}
		if closing || v.closing {
			res = closeNow
			if cs.discard > 0 || used < len(buf) {
				// Requests or body bytes follow: linger over them.
				res = closeLinger
			}
			break
		}
	}
	l.out = out
	tally.flush()
	return used, res
}

func isHead(method []byte) bool { return string(method) == "HEAD" }

// requestStart returns when the request at offset at of the bytes served
// began: for the first, held over from earlier reads, the start of the
// read that brought its first byte; else the start of this read.
func (cs *conn) requestStart(at int) time.Time {
	if at == 0 && cs.headStart != 0 && !cs.firstRead.IsZero() {
		return cs.firstRead
	}
	return cs.loop.readStart
}

// startLinger begins a lingering close: the answer is written; the write
// side is shut so the client sees the end of the answer, and what the
// client still sends is dropped until it closes, lingerIdle passes without
// a byte, lingerTotal passes, or lingerMaxRead bytes have come.
func (cs *conn) startLinger(c gnet.Conn, now int64, unread int) gnet.Action {
	cs.lingerUntil = now + int64(lingerTotal)
	if tc, ok := c.(*tlsport.Conn); ok {
		tc.CloseWriteAfterFlush()
	} else if c.OutboundBuffered() == 0 {
		// Without this the client would only see the end of the answer
		// when the lingering read ends.
		unix.Shutdown(c.Fd(), unix.SHUT_WR)
	}
	return cs.drop(c, unread)
}

// drop discards n buffered bytes of a lingering connection.
func (cs *conn) drop(c gnet.Conn, n int) gnet.Action {
	if n > 0 {
		c.Discard(n)
	}
	cs.lingerRead += n
	if cs.lingerRead > lingerMaxRead {
		return gnet.Close
	}
	return gnet.None
}

// checkDeadline closes the connection when one of its timeouts has
// passed; it runs on the connection's loop.
func (cs *conn) checkDeadline(now int64) {
	o := &cs.loop.srv.opts
	switch {
	case cs.h2:
		if cs.loop.srv.draining.Load() {
			cs.close() // engine/h2 sends GOAWAY
		}
	case cs.fwd != nil:
		cs.checkForward(now)
	case cs.lingerUntil != 0:
		if now >= cs.lingerUntil || now-cs.active >= int64(lingerIdle) {
			cs.loop.srv.m.timeouts.linger.Inc()
			cs.close()
		}
	case cs.headStart != 0:
		if now-cs.headStart >= int64(o.HeaderTimeout) {
			cs.loop.srv.m.timeouts.header.Inc()
			cs.loop.srv.m.answer(outClientError, 408)
			// Tell the client why, as nginx and HAProxy do with 408.
			cs.c.Write(appendText(cs.loop.out[:0], 408, cs.fields(), "request head not received in time\n", false, cs.loop.srv.date.get(), connClose))
			cs.close()
		}
	case now-cs.active >= int64(o.IdleTimeout) || cs.loop.srv.draining.Load() && cs.idle():
		if !cs.loop.srv.draining.Load() {
			cs.loop.srv.m.timeouts.idle.Inc()
		}
		cs.close()
	}
}

// sweep checks cs's deadlines (see checkDeadline), closing cs if that
// panics rather than leaving the loop's other connections unchecked.
func (cs *conn) sweep(now int64) {
	if cs.closing {
		return
	}
	defer cs.loop.srv.recoverConn(atSweep, cs.c, cs, nil)
	cs.loop.srv.testPanic(atSweep, nil)
	cs.checkDeadline(now)
}

func (cs *conn) close() {
	cs.closing = true
	cs.loop.el.Close(cs.c)
}

// idle reports whether the connection is between two requests, with
// nothing buffered or owed, so that a draining server may close it. A
// connection that has not sent its first request yet is not idle: its
// request is likely on the way, and closing would reset it; it gets its
// answer with Connection: close instead.
func (cs *conn) idle() bool {
	return cs.served > 0 && cs.fwd == nil && cs.discard == 0 && cs.headStart == 0 &&
		cs.c.InboundBuffered() == 0 && cs.c.OutboundBuffered() == 0
}
