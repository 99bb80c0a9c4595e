package engine

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/valyala/fasthttp"

	fw "github.com/redirectd/redirectd/engine/forward"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/internal/safego"
)

// startTunnel forwards a WebSocket upgrade. fasthttp cannot carry an
// upgraded connection, so the request goes over a connection of its own,
// with the headers every forward gets (forward.RequestHeaders) and the
// upgrade.
//
// Nothing the client sent after the head is taken: until the upstream
// answers, it waits in the connection's buffer like any pipelined request
// (it used to be copied upstream at once, so a request
// behind a refused upgrade reached the upstream unparsed, with the
// client's own X-Forwarded-For). On 101 the connection becomes a tunnel
// (switchTunnel); any other answer is relayed, and what follows is parsed
// as requests. It returns how many bytes of buf it took: none.
func (cs *conn) startTunnel(s *Server, req *httpparse.Request, buf []byte) int {
	f := &forward{s: s, g: cs.loop.group, cs: cs, c: cs.c, closing: !req.KeepAlive, http10: req.Minor == 0, tunnel: true,
		abort: make(chan struct{}), drained: make(chan struct{}, 1), start: time.Now()}
	f.moved.Store(s.clock.now())
	if cs.loop.alog != nil {
		f.info = cs.loop.ri.copy()
	}
	cs.fwd = f
	upgrade, n := fw.UpgradeFields(req)
	if n != 1 {
		// Which one would the upstream act on? Servers and proxies
		// disagree (redirectd used to send all and check the last), so
		// the request is refused.
		s.m.answer(outClientError, 400)
		f.closing = true
		f.answerError(400, "several Upgrade fields\n")
		return 0
	}
	f.srv, f.pickErr = f.g.Pool.Pick()
	if f.pickErr != nil {
		go f.runTunnel(nil)
		return 0
	}
	// The head is built now: req points into the loop's buffer.
	head := fw.RawHead(make([]byte, 0, 512))
	head = append(append(append(append(head, req.Method...), ' '), cs.upstreamTarget(req)...), " HTTP/1.1\r\n"...)
	cs.upstreamHeaders(&head, req, cs.https(req), f.g, f.srv.Addr)
	head.Add([]byte("Upgrade"), upgrade)
	head.Add([]byte("Connection"), []byte("Upgrade"))
	head = append(head, "\r\n"...)
	go f.runTunnel(head)
	return 0
}

// runTunnel dials the server picked, sends the upgrade request and
// relays the answer; on 101 it relays bytes both ways until either side
// closes.
func (f *forward) runTunnel(head []byte) {
	defer f.s.recoverConn(atTunnel, f.c, f.cs, nil)
	f.s.testPanic(atTunnel, nil)
	// However the tunnel ends, the client's side stops feeding it.
	defer f.abortExchange(0)
	if f.pickErr != nil {
		f.answerError(502, "no upstream server is available\n")
		return
	}
	srv := f.srv
	f.server = srv.Addr
	up, err := srv.Dial() // over TLS for an https:// server
	srv.Done(err != nil)
	if err != nil {
		f.s.log.Warn("tunnel failed", "group", f.g.Name, "server", srv.Addr, "status", 502, "err", err)
		f.answerError(502, "the upstream server could not be reached\n")
		return
	}
	defer up.Close()
	go func() {
		defer safego.Recover("tunnel abort")
		// The client went (or the tunnel ended): unblock the reads below.
		<-f.abort
		up.Close()
	}()
	if d := srv.ReadTimeout(); d > 0 {
		// The upgrade's answer is due as a forward's is; a refusal's body
		// too. Once switched, the tunnel has its own idle timeout
		// (tunnel_idle_timeout, checkForward).
		up.SetDeadline(time.Now().Add(d))
	}
	if _, err := up.Write(head); err != nil {
		f.answerError(502, "the upstream server could not be reached\n")
		return
	}
	// The answer is read by the parser forwards use (fasthttp's), with
	// their bounds: a head of at most upstream.MaxAnswerHead bytes, at
	// most 100 interim answers before the final one. net/http's
	// ReadResponse read a head without bound (an endless field took 1 GB
	// in two seconds) and its 1xx loop had no count.
	br := bufio.NewReaderSize(up, upstream.MaxAnswerHead)
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	resp.Header.DisableNormalizing()
	resp.Header.SetNoDefaultContentType(true)
	resp.StreamBody = true
	if err := resp.Read(br); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			f.answerError(504, "the upstream server did not answer in time\n")
			return
		}
		f.answerError(502, "the upstream server sent no valid answer\n")
		return
	}
	if resp.StatusCode() != http.StatusSwitchingProtocols {
		// Relayed as a forward's answer; the upstream connection, which
		// was the upgrade's own, closes, and the client's stays open for
		// the requests it sent behind the head.
		f.relay(resp)
		return
	}
	up.SetDeadline(time.Time{})
	f.status.Store(http.StatusSwitchingProtocols)
	f.closing = true // the end of the tunnel is the end of the connection
	// The 101 goes with the upstream's fields by the policy of every
	// relayed answer, its Upgrade and Connection kept (they are the
	// switch); the status line is written from the code.
	out := fw.AppendStatusLine(make([]byte, 0, 256), http.StatusSwitchingProtocols, resp.Header.StatusMessage())
	out = append(f.appendAnswerFields(out, resp.Header.All(), true), "\r\n"...)
	body := make(chan []byte, bodyChunks)
	if !f.switchTunnel(out, body) {
		return
	}
	f.pumpTunnel(up, br, body)
}

// pumpTunnel relays the bytes of a switched tunnel both ways: what the
// client sends (body) to up on a goroutine of its own, what up sends
// (read through br) to the client here, until up closes or the client
// goes.
func (f *forward) pumpTunnel(up net.Conn, br *bufio.Reader, body chan []byte) {
	go func() {
		defer f.s.recoverConn(atTunnel, f.c, f.cs, nil)
		// Client to upstream; ends when the client goes (abort) or the
		// upstream stops taking bytes.
		io.Copy(up, &bodyReader{f: f, ch: body})
		if cw, ok := up.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite() // *net.TCPConn, or *tls.Conn's close_notify
		}
	}()
	bufp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bufp)
	buf := (*bufp)[:answerChunk]
	for {
		// br first: bytes after the 101 may have come with it.
		n, err := br.Read(buf)
		if n > 0 {
			if !f.write(buf[:n]) {
				return
			}
			f.moved.Store(f.s.clock.now())
		}
		if err != nil {
			break
		}
	}
	f.finish(true)
}

// switchTunnel writes the upstream's 101 to the client and, on the loop,
// in the same trip, makes the connection a tunnel: from then on, what the
// client sent after its head and sends later goes into body, for the
// upstream. It reports false when the client is gone.
func (f *forward) switchTunnel(head []byte, body chan []byte) bool {
	done := make(chan error, 1)
	f.wrote(head)
	err := f.c.AsyncWrite(head, f.onLoop(func(c gnet.Conn, err error) {
		if err == nil && !f.aborted.Load() {
			f.body = body
			f.moved.Store(f.s.clock.now()) // the idle timeout starts
			if c.InboundBuffered() > 0 {
				c.Wake(nil) // whileForwarding feeds what is buffered
			}
		}
		done <- err
	}))
	if err != nil {
		return false
	}
	select {
	case err = <-done:
		return err == nil && !f.aborted.Load()
	case <-f.abort: // the connection closed (a panic in the callback too)
		return false
	case <-f.s.stopping:
		return false
	}
}
