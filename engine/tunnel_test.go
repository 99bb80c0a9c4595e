package engine_test

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// wsEchoUpstream is a minimal WebSocket server (RFC 6455) on loopback: it
// completes the handshake and echoes every text frame it gets.
func wsEchoUpstream(t *testing.T) string {
	t.Helper()
	upAddr := testutil.Serve(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil || req.Header.Get("Upgrade") != "websocket" {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
			return
		}
		sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
			"Sec-WebSocket-Accept: "+base64.StdEncoding.EncodeToString(sum[:])+"\r\n\r\n")
		for {
			msg, err := readFrame(br)
			if err != nil {
				return
			}
			c.Write(frame("echo: "+msg, nil))
		}
	})
	return upAddr
}

// frame encodes a text frame, masked when mask is given (client to server).
func frame(msg string, mask []byte) []byte {
	b := []byte{0x81, byte(len(msg))}
	payload := []byte(msg)
	if mask != nil {
		b[1] |= 0x80
		b = append(b, mask...)
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
	}
	return append(b, payload...)
}

// readFrame decodes one short text frame, masked or not.
func readFrame(br *bufio.Reader) (string, error) {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return "", err
	}
	n := int(h[1] & 0x7f)
	if n == 126 {
		var l [2]byte
		io.ReadFull(br, l[:])
		n = int(binary.BigEndian.Uint16(l[:]))
	}
	var mask []byte
	if h[1]&0x80 != 0 {
		mask = make([]byte, 4)
		io.ReadFull(br, mask)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(br, p); err != nil {
		return "", err
	}
	for i := range p {
		if mask != nil {
			p[i] ^= mask[i%4]
		}
	}
	return string(p), nil
}

func TestWebSocketTunnel(t *testing.T) { testWebSocketTunnel(t, plainTCP) }

func testWebSocketTunnel(t *testing.T, tr transport) {
	// On a fake clock, which moves past the body timeout mid-tunnel.
	srv := tr.startClockedProxy(t, upstream.Config{Servers: []string{wsEchoUpstream(t)}},
		engine.UpstreamOptions{BodyTimeout: 200 * time.Millisecond, TunnelIdleTimeout: time.Hour})
	c := tr.dial(t, srv.Server)
	io.WriteString(c, "GET /chat HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 101 || resp.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("handshake: %d %v", resp.StatusCode, resp.Header)
	}
	for i, msg := range []string{"hello", strings.Repeat("x", 100), "bye"} {
		if i == 1 {
			// Longer than the body timeout: a tunnel is not a body.
			srv.advance(400 * time.Millisecond)
		}
		c.Write(frame(msg, []byte{1, 2, 3, 4}))
		got, err := readFrame(br)
		if err != nil || got != "echo: "+msg {
			t.Fatalf("echo of %q: %q %v", msg, got, err)
		}
	}
	c.Close()
}

func TestWebSocketRefused(t *testing.T) {
	t.Parallel()
	testWebSocketRefused(t, plainTCP)
}

func testWebSocketRefused(t *testing.T, tr transport) {
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no websockets here", http.StatusForbidden)
	}))
	srv := tr.startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{})
	c := tr.dial(t, srv)
	io.WriteString(c, "GET /chat HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	br := bufio.NewReader(c)
	resp, body := readFull(t, br, "GET")
	if resp.StatusCode != 403 || !strings.Contains(body, "no websockets here") || resp.Close {
		t.Fatalf("refused upgrade: %d %q close=%v", resp.StatusCode, body, resp.Close)
	}
	// The connection stays an HTTP one.
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, _ := readFull(t, br, "GET"); resp.StatusCode != 301 {
		t.Fatalf("request after the refused upgrade: %d", resp.StatusCode)
	}
}
