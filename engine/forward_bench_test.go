package engine_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// BenchmarkForward measures a miss forwarded to a local net/http upstream
// answering 1 KiB, round trip from a client on loopback: with client
// keep-alive, a POST of 1 KiB with keep-alive, and with a new client
// connection per request.
func BenchmarkForward(b *testing.B) {
	body := strings.Repeat("x", 1024)
	origin := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go origin.Serve(ln)
	defer origin.Close()
	pool := upstream.New(upstream.Config{Servers: []string{ln.Addr().String()}, MaxConnsPerServer: 64,
		ConnectTimeout: 1e9, ReadTimeout: 5e9, WriteTimeout: 5e9}, nil)
	defer pool.Close()
	srv := runBenchServer(b, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}})
	req := []byte("GET /miss HTTP/1.1\r\nHost: bench\r\n\r\n")
	b.Run("keepalive", func(b *testing.B) {
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		br := bufio.NewReader(c)
		b.ReportAllocs()
		for b.Loop() {
			c.Write(req)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("%v %v", resp, err)
			}
			io.Copy(io.Discard, resp.Body)
		}
	})
	b.Run("post-1k", func(b *testing.B) {
		// A 1 KiB body: read whole by the loop before the exchange
		// starts (request_buffer_bytes), then sent from the buffer.
		c, err := net.Dial("tcp", srv.Addr())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		post := []byte("POST /miss HTTP/1.1\r\nHost: bench\r\nContent-Length: 1024\r\n\r\n" + body)
		br := bufio.NewReader(c)
		b.ReportAllocs()
		for b.Loop() {
			c.Write(post)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("%v %v", resp, err)
			}
			io.Copy(io.Discard, resp.Body)
		}
	})
	b.Run("new-connection", func(b *testing.B) {
		closeReq := []byte("GET /miss HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
		b.ReportAllocs()
		for b.Loop() {
			c, err := net.Dial("tcp", srv.Addr())
			if err != nil {
				b.Fatal(err)
			}
			c.Write(closeReq)
			if _, err := io.Copy(io.Discard, c); err != nil {
				b.Fatal(err)
			}
			c.Close()
		}
	})
}
