package engine_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// closedWithin waits for the server to close c and returns how long that
// took; it fails the test when c is still open after limit. Bytes the
// server sends before closing are returned too.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) (time.Duration, string) {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	got, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %v", limit)
	}
	return time.Since(start), string(got)
}

func TestIdleTimeout(t *testing.T) { testIdleTimeout(t, plainTCP) }

func testIdleTimeout(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{IdleTimeout: 300 * time.Millisecond, HeaderTimeout: 5 * time.Second})
	t.Run("new connection sending nothing", func(t *testing.T) {
		c := tr.dial(t, srv)
		took, got := closedWithin(t, c, 3*time.Second)
		if took < 200*time.Millisecond || got != "" {
			t.Fatalf("closed after %v with %q; want after about 300ms, silently", took, got)
		}
	})
	t.Run("keep-alive connection after a request", func(t *testing.T) {
		c := tr.dial(t, srv)
		io.WriteString(c, followUp)
		br := bufio.NewReader(c)
		readAnswer(t, br, "GET")
		start := time.Now()
		c.SetReadDeadline(start.Add(3 * time.Second))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Fatalf("want EOF after the idle timeout, got %v", err)
		}
		if took := time.Since(start); took < 200*time.Millisecond {
			t.Fatalf("closed after %v, before the idle timeout", took)
		}
	})
	t.Run("busy connection stays open", func(t *testing.T) {
		c := tr.dial(t, srv)
		br := bufio.NewReader(c)
		for range 8 {
			io.WriteString(c, followUp)
			if a := readAnswer(t, br, "GET"); a.Status != 301 {
				t.Fatalf("answer %+v", a)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// TestHeaderTimeout checks the slowloris defence: a head sent a byte at a
// time is cut off after the header timeout although bytes keep coming.
func TestHeaderTimeout(t *testing.T) { testHeaderTimeout(t, plainTCP) }

func testHeaderTimeout(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{HeaderTimeout: 300 * time.Millisecond, IdleTimeout: 5 * time.Second})
	c := tr.dial(t, srv)
	done := make(chan struct{})
	go func() {
		defer close(done)
		head := "GET /old HTTP/1.1\r\nHost: a\r\nX-Slow: " + strings.Repeat("x", 200)
		for i := range len(head) {
			if _, err := c.Write([]byte{head[i]}); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	took, got := closedWithin(t, c, 3*time.Second)
	<-done
	if took > 2*time.Second || !strings.HasPrefix(got, "HTTP/1.1 408 ") || !strings.Contains(got, "Connection: close") {
		t.Fatalf("after %v got %q; want a 408 and a close after about 300ms", took, got)
	}
}

// TestLingeringClose checks that an answer sent before the request body
// has arrived reaches the client whole, while the client goes on sending,
// and that the connection is then closed.
func TestLingeringClose(t *testing.T) { testLingeringClose(t, plainTCP) }

func testLingeringClose(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	t.Run("body sent after the answer", func(t *testing.T) {
		c := tr.dial(t, srv)
		io.WriteString(c, "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 300000\r\n\r\n")
		br := bufio.NewReader(c)
		// Keep sending the body while reading the answer: without a
		// lingering read, closing with unread data would reset the
		// connection and the answer could be lost.
		go func() {
			chunk := []byte(strings.Repeat("b", 10000))
			for range 30 {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		}()
		a := readAnswer(t, br, "POST")
		if a.Status != 301 || !a.Close {
			t.Fatalf("answer %+v, want 301 with Connection: close", a)
		}
		c.SetReadDeadline(time.Now().Add(4 * time.Second))
		if _, err := io.Copy(io.Discard, br); err != nil {
			t.Fatalf("want a clean close after the body, got %v", err)
		}
	})
	t.Run("client that never stops is cut off", func(t *testing.T) {
		c := tr.dial(t, srv)
		io.WriteString(c, "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 100000000\r\n\r\n")
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			chunk := []byte(strings.Repeat("b", 1000))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := c.Write(chunk); err != nil {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		start := time.Now()
		c.SetReadDeadline(start.Add(5 * time.Second))
		io.Copy(io.Discard, c)
		if took := time.Since(start); took > 3500*time.Millisecond {
			t.Fatalf("lingering went on for %v, want at most about 2s", took)
		}
	})
	t.Run("more than 1 MiB is cut off", func(t *testing.T) {
		c := tr.dial(t, srv)
		io.WriteString(c, "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 100000000\r\n\r\n")
		go func() {
			chunk := []byte(strings.Repeat("b", 64<<10))
			for range 64 {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		}()
		start := time.Now()
		c.SetReadDeadline(start.Add(5 * time.Second))
		io.Copy(io.Discard, c)
		if took := time.Since(start); took > 1500*time.Millisecond {
			t.Fatalf("closed after %v; 1 MiB should end the lingering read at once", took)
		}
	})
}

func TestConnectionsPerIP(t *testing.T) { testConnectionsPerIP(t, plainTCP) }

func testConnectionsPerIP(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{MaxConnsPerIP: 5})
	var conns []net.Conn
	for range 5 {
		c := tr.dial(t, srv)
		io.WriteString(c, followUp)
		if a := readAnswer(t, bufio.NewReader(c), "GET"); a.Status != 301 {
			t.Fatalf("connection under the limit: %+v", a)
		}
		conns = append(conns, c)
	}
	over := tr.dial(t, srv)
	io.WriteString(over, followUp)
	if took, got := closedWithin(t, over, 2*time.Second); got != "" {
		t.Fatalf("connection over the limit answered %q after %v; want it closed at once", got, took)
	}
	conns[0].Close()
	// The server counts the close when it sees it; retry briefly.
	var resp string
	var err error
	if !testutil.Eventually(10*time.Second, func() bool {
		c := tr.dial(t, srv)
		io.WriteString(c, followUp)
		resp, err = bufio.NewReader(c).ReadString('\n')
		return err == nil && strings.HasPrefix(resp, "HTTP/1.1 301")
	}) {
		t.Fatalf("no room after closing a connection: %q %v", resp, err)
	}
}

func TestMaxConnections(t *testing.T) {
	t.Parallel()
	testMaxConnections(t, plainTCP)
}

func testMaxConnections(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{MaxConns: 3})
	for range 3 {
		c := tr.dial(t, srv)
		io.WriteString(c, followUp)
		if a := readAnswer(t, bufio.NewReader(c), "GET"); a.Status != 301 {
			t.Fatalf("connection under the limit: %+v", a)
		}
	}
	over := tr.dial(t, srv)
	io.WriteString(over, followUp)
	if _, got := closedWithin(t, over, 2*time.Second); got != "" {
		t.Fatalf("connection over the global limit answered %q", got)
	}
}

func TestHTTPSRedirect(t *testing.T) {
	srv := startServerWith(t, engine.Options{HTTPSRedirect: true})
	tests := []struct {
		name, raw string
		want      answer
	}{
		{"plain http", "GET /some/page?x=1 HTTP/1.1\r\nHost: Example.com:8080\r\n\r\n", answer{301, "https://Example.com/some/page?x=1", "", false}},
		{"marked http", "GET /old HTTP/1.1\r\nHost: example.com\r\nX-Forwarded-Proto: http\r\n\r\n", answer{301, "https://example.com/old", "", false}},
		{"marked https", "GET /old HTTP/1.1\r\nHost: example.com\r\nX-Forwarded-Proto: https\r\n\r\n", answer{301, "https://example.com/new", "", false}},
		{"marked https by the first proxy", "GET /docs/a HTTP/1.1\r\nHost: example.com\r\nx-forwarded-proto: HTTPS, http\r\n\r\n", answer{302, "https://docs.example.com/a", "", false}},
		{"IPv6 host", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", answer{301, "https://[::1]/", "", false}},
		{"absolute form", "GET http://shop.example.com/x HTTP/1.1\r\nHost: shop.example.com\r\n\r\n", answer{301, "https://shop.example.com/x", "", false}},
		{"HTTP/1.0 without Host", "GET /old HTTP/1.0\r\n\r\n", answer{400, "", "a Host header is needed to redirect to https\n", true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, srv)
			io.WriteString(c, tt.raw)
			if got := readAnswer(t, bufio.NewReader(c), "GET"); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestUnreadAnswersClose checks that a client pipelining requests without
// reading the answers is closed once they pile up, instead of growing the
// server's outbound buffer without bound. On the plain port the event
// loop closes it once its outbound buffer passes the limit. Over TLS a
// connection's goroutine stops reading while its write is blocked, so
// the answers pile up in the client's socket, not the server, and the
// write gives up after the send timeout (the idle timeout without
// upstream groups), shortened here. The client's own write deadline is
// far longer: a write that ends on it means the server never closed.
func TestUnreadAnswersClose(t *testing.T) {
	t.Parallel()
	testUnreadAnswersClose(t, plainTCP)
}

func testUnreadAnswersClose(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{IdleTimeout: 500 * time.Millisecond})
	c := tr.dial(t, srv)
	batch := []byte(strings.Repeat(followUp, 500))
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	var err error
	for i := 0; i < 2000 && err == nil; i++ {
		_, err = c.Write(batch)
	}
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server kept the connection of a client that read none of its answers (%v)", err)
	}
}
