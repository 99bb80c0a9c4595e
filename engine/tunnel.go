package engine

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/redirectd/redirectd/httpparse"
)

// isWebSocket reports whether req asks to switch to WebSocket (RFC 6455
// 4.1): Upgrade names websocket and Connection names upgrade.
func isWebSocket(req *httpparse.Request) bool {
	var upgrade, connUpgrade bool
	for i := range req.Headers {
		h := &req.Headers[i]
		switch {
		case bytes.EqualFold(h.Name, []byte("upgrade")):
			upgrade = bytes.EqualFold(bytes.TrimSpace(h.Value), []byte("websocket"))
		case bytes.EqualFold(h.Name, []byte("connection")):
			for tok := range bytes.SplitSeq(h.Value, []byte{','}) {
				if bytes.EqualFold(bytes.TrimSpace(tok), []byte("upgrade")) {
					connUpgrade = true
				}
			}
		}
	}
	return upgrade && connUpgrade && req.Method != nil && string(req.Method) == "GET"
}

// startTunnel forwards a WebSocket upgrade. fasthttp cannot carry an
// upgraded connection, so the request goes over a connection of its own:
// once the upstream answers 101, bytes are relayed both ways until either
// side closes. Client bytes travel like a request body without end.
func (cs *conn) startTunnel(s *Server, req *httpparse.Request, buf []byte) int {
	f := &forward{s: s, cs: cs, c: cs.c, closing: true, tunnel: true,
		abort: make(chan struct{}), drained: make(chan struct{}, 1), start: time.Now()}
	if cs.loop.alog != nil {
		f.info = cs.loop.ri.copy()
	}
	// The request head is rebuilt now: req points into the loop's buffer.
	head := make([]byte, 0, 512)
	head = append(append(append(head, req.Method...), ' '), req.Path...)
	if req.Query != nil {
		head = append(append(head, '?'), req.Query...)
	}
	head = append(head, " HTTP/1.1\r\n"...)
	var xff []byte
	for i := range req.Headers {
		h := &req.Headers[i]
		switch {
		case bytes.EqualFold(h.Name, []byte("x-forwarded-for")):
			xff = append(append(xff, h.Value...), ", "...)
		case bytes.EqualFold(h.Name, []byte("x-forwarded-proto")), bytes.EqualFold(h.Name, []byte("x-forwarded-host")):
		default:
			head = append(append(append(append(head, h.Name...), ": "...), h.Value...), "\r\n"...)
		}
	}
	head = append(append(append(head, "X-Forwarded-For: "...), xff...), cs.ip.String()...)
	head = append(head, "\r\nX-Forwarded-Proto: http\r\n"...)
	if len(req.Host) > 0 {
		head = append(append(append(head, "X-Forwarded-Host: "...), req.Host...), "\r\n"...)
	}
	head = append(head, "\r\n"...)
	f.body = make(chan []byte, bodyChunks)
	f.hasBody = true
	cs.fwd = f
	used := f.feed(buf)
	go f.runTunnel(head, &bodyReader{f: f, ch: f.body})
	return used
}

// runTunnel dials a server, sends the upgrade request and relays.
func (f *forward) runTunnel(head []byte, fromClient io.Reader) {
	defer f.s.recoverConn(atTunnel, f.c, f.cs, nil)
	f.s.testPanic(atTunnel, nil)
	srv, err := f.s.up.Pool.Pick()
	if err != nil {
		f.answerError(502, "no upstream server is available\n")
		return
	}
	f.server = srv.Addr
	up, err := net.DialTimeout("tcp", srv.Addr, srv.ConnectTimeout())
	srv.Done(err != nil)
	if err != nil {
		f.answerError(502, "the upstream server could not be reached\n")
		return
	}
	defer up.Close()
	go func() {
		defer f.s.recoverConn(atTunnel, f.c, f.cs, nil)
		// Client to upstream; ends when the client goes (abort) or the
		// upstream stops taking bytes.
		io.Copy(up, fromClient)
		up.(*net.TCPConn).CloseWrite()
	}()
	if _, err := up.Write(head); err != nil {
		f.answerError(502, "the upstream server could not be reached\n")
		return
	}
	br := bufio.NewReader(up)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		f.answerError(502, "the upstream server sent no valid answer\n")
		return
	}
	f.status.Store(int32(resp.StatusCode))
	// Relay the answer head as it came, then every byte after it.
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + resp.Status + "\r\n")
	if resp.StatusCode != http.StatusSwitchingProtocols {
		resp.Header.Set("Connection", "close")
	}
	resp.Header.Write(&out)
	out.WriteString("\r\n")
	if !f.write(out.Bytes()) {
		return
	}
	var from io.Reader = br
	if resp.StatusCode != http.StatusSwitchingProtocols {
		from = resp.Body
	}
	for {
		buf := make([]byte, answerChunk)
		n, err := from.Read(buf)
		if n > 0 && !f.write(buf[:n]) {
			return
		}
		if err != nil {
			break
		}
	}
	f.finish(true)
}
