package exchange

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
	"github.com/redirectd/redirectd/internal/safego"
)

// A WebSocket upgrade is forwarded over a connection of its own, since
// fasthttp cannot carry an upgraded connection: the engine builds the
// upgrade request's head (engine/forwarding.go) and StartTunnel sends it.
//
// Nothing the client sent after the head is taken: until the upstream
// answers, it waits in the connection's buffer like any pipelined request
// (it used to be copied upstream at once, so a request
// behind a refused upgrade reached the upstream unparsed, with the
// client's own X-Forwarded-For). On 101 the connection becomes a tunnel
// (switchTunnel); any other answer is relayed, and what follows is parsed
// as requests.

// StartTunnel starts the tunnel of a WebSocket upgrade whose request
// head for the server Pick chose is head (nil when none is up), on a
// goroutine of its own.
func (f *Forward) StartTunnel(head []byte) {
	go f.runTunnel(head)
}

// runTunnel dials the server picked, sends the upgrade request and
// relays the answer; on 101 it relays bytes both ways until either side
// closes.
func (f *Forward) runTunnel(head []byte) {
	defer f.recoverAt(AtTunnel)
	f.conn.TestPanic(AtTunnel)
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
		f.h.Log.Warn("tunnel failed", "group", f.g.Name, "server", srv.Addr, "status", 502, "err", err)
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
		// (tunnel_idle_timeout, Check).
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
func (f *Forward) pumpTunnel(up net.Conn, br *bufio.Reader, body chan []byte) {
	go func() {
		defer f.recoverAt(AtTunnel)
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
			f.moved.Store(f.conn.Now())
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
func (f *Forward) switchTunnel(head []byte, body chan []byte) bool {
	done := make(chan error, 1)
	f.wrote(head)
	err := f.c.AsyncWrite(head, f.onLoop(func(c gnet.Conn, err error) {
		if err == nil && !f.aborted.Load() {
			f.body = body
			f.moved.Store(f.conn.Now()) // the idle timeout starts
			if c.InboundBuffered() > 0 {
				c.Wake(nil) // WhileForwarding feeds what is buffered
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
	case <-f.h.Stopping:
		return false
	}
}
