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
// took, for messages; it fails the test when c is still open after limit,
// only a guard against a test that would hang. Bytes the server sends
// before closing are returned too.
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

// TestIdleTimeout checks that a connection that sends nothing, before
// its first request or between two, is closed silently once the idle
// timeout has passed on the server's clock, and not a moment before.
func TestIdleTimeout(t *testing.T) { testIdleTimeout(t, plainTCP) }

func testIdleTimeout(t *testing.T, tr transport) {
	const idle = 10 * time.Second
	opts := engine.Options{IdleTimeout: idle, HeaderTimeout: time.Hour}
	t.Run("new connection sending nothing", func(t *testing.T) {
		srv := tr.startClocked(t, opts)
		c := tr.dial(t, srv.Server)
		srv.settled(t, c)
		srv.advance(idle - time.Millisecond)
		srv.wantTimedOut(t, "idle", 0)
		srv.advance(time.Millisecond)
		srv.wantTimedOut(t, "idle", 1)
		if got := readToEnd(t, c, c); got != "" {
			t.Fatalf("closed with %q, want silently", got)
		}
		srv.waitClosed(t)
	})
	t.Run("keep-alive connection after a request", func(t *testing.T) {
		srv := tr.startClocked(t, opts)
		c := tr.dial(t, srv.Server)
		io.WriteString(c, followUp)
		br := bufio.NewReader(c)
		readAnswer(t, br, "GET")
		srv.advance(idle - time.Millisecond)
		srv.wantTimedOut(t, "idle", 0)
		srv.advance(time.Millisecond)
		srv.wantTimedOut(t, "idle", 1)
		if got := readToEnd(t, br, c); got != "" {
			t.Fatalf("closed with %q, want silently", got)
		}
	})
	t.Run("busy connection stays open", func(t *testing.T) {
		srv := tr.startClocked(t, opts)
		c := tr.dial(t, srv.Server)
		br := bufio.NewReader(c)
		for range 8 {
			io.WriteString(c, followUp)
			if a := readAnswer(t, br, "GET"); a.Status != 301 {
				t.Fatalf("answer %+v", a)
			}
			srv.advance(idle - time.Millisecond)
		}
		srv.wantTimedOut(t, "idle", 0)
	})
}

// TestHeaderTimeout checks the slowloris defence: a head sent a byte at a
// time is answered 408 and closed once the header timeout has passed
// since its first byte, although bytes keep coming, and not before.
func TestHeaderTimeout(t *testing.T) { testHeaderTimeout(t, plainTCP) }

func testHeaderTimeout(t *testing.T, tr transport) {
	const header = 10 * time.Second
	srv := tr.startClocked(t, engine.Options{HeaderTimeout: header, IdleTimeout: time.Hour})
	c := tr.dial(t, srv.Server)
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\nX-Slow: ")
	start := srv.now()
	srv.waitConn(t, "the head's first bytes", func(c engine.ConnState) bool { return c.HeadStart == start })
	// A byte every tenth of the timeout, the last just before it ends.
	for i := range 10 {
		step := header / 10
		if i == 9 {
			step -= time.Millisecond
		}
		srv.advance(step)
		io.WriteString(c, "x")
		at := srv.now()
		srv.waitConn(t, "the next byte", func(c engine.ConnState) bool { return c.Active == at })
	}
	srv.advance(0)
	srv.wantTimedOut(t, "header", 0)
	srv.advance(time.Millisecond)
	srv.wantTimedOut(t, "header", 1)
	got := readToEnd(t, c, c)
	if !strings.HasPrefix(got, "HTTP/1.1 408 ") || !strings.Contains(got, "Connection: close") {
		t.Fatalf("got %q; want a 408 and a close", got)
	}
	srv.waitClosed(t)
}

// TestLingeringClose checks that an answer sent before the request body
// has arrived reaches the client whole, while the client goes on sending,
// and that the connection is then closed: once the body is in, once the
// client has sent nothing for LingerIdle, at LingerTotal after the answer
// however much it sends, at once past LingerMaxRead bytes; and not before.
// The client sees the end of the answer at once, its write side shut;
// the server's close is seen on the server.
func TestLingeringClose(t *testing.T) { testLingeringClose(t, plainTCP) }

func testLingeringClose(t *testing.T, tr transport) {
	const post = "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 100000000\r\n\r\n"
	// lingering starts a lingering close with post, reads its answer and
	// waits until the server lingers.
	lingering := func(t *testing.T, srv *clockedServer, c net.Conn) {
		t.Helper()
		io.WriteString(c, post)
		br := bufio.NewReader(c)
		if a := readAnswer(t, br, "POST"); a.Status != 301 || !a.Close {
			t.Fatalf("answer %+v, want 301 with Connection: close", a)
		}
		start := srv.now()
		srv.waitConn(t, "the lingering close", func(c engine.ConnState) bool { return c.LingerUntil == start+int64(engine.LingerTotal) })
		if rest := readToEnd(t, br, c); rest != "" {
			t.Fatalf("after the answer: %q, want its end", rest)
		}
	}
	// send sends a chunk of the body and waits until the server has read it.
	send := func(t *testing.T, srv *clockedServer, c net.Conn) {
		t.Helper()
		if _, err := c.Write([]byte(strings.Repeat("b", 1000))); err != nil {
			t.Fatal(err)
		}
		at := srv.now()
		srv.waitConn(t, "the body's next bytes", func(c engine.ConnState) bool { return c.Active == at })
	}
	t.Run("body sent after the answer", func(t *testing.T) {
		srv := tr.startClocked(t, engine.Options{})
		c := tr.dial(t, srv.Server)
		io.WriteString(c, "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 300000\r\n\r\n")
		br := bufio.NewReader(c)
		// Keep sending the body while reading the answer: without a
		// lingering read, closing with unread data would reset the
		// connection and the answer could be lost.
		wrote := make(chan error, 1)
		go func() {
			chunk := []byte(strings.Repeat("b", 10000))
			var err error
			for i := 0; i < 30 && err == nil; i++ {
				_, err = c.Write(chunk)
			}
			wrote <- err
		}()
		a := readAnswer(t, br, "POST")
		if a.Status != 301 || !a.Close {
			t.Fatalf("answer %+v, want 301 with Connection: close", a)
		}
		if rest := readToEnd(t, br, c); rest != "" {
			t.Fatalf("after the answer: %q, want its end", rest)
		}
		if err := <-wrote; err != nil {
			t.Fatalf("sending the body: %v", err)
		}
		// Closed once quiet after the body, or at once where the whole
		// body came in the answer's read.
		testutil.WaitFor(t, 30*time.Second, "the server to read the body", func() bool {
			cs := engine.Conns(srv.Server)
			return len(cs) == 0 || cs[0].LingerRead == 300000
		})
		srv.advance(engine.LingerIdle)
		srv.waitClosed(t)
	})
	t.Run("client that goes quiet", func(t *testing.T) {
		srv := tr.startClocked(t, engine.Options{})
		c := tr.dial(t, srv.Server)
		lingering(t, srv, c)
		srv.advance(engine.LingerIdle - time.Millisecond)
		srv.wantTimedOut(t, "linger", 0)
		srv.advance(time.Millisecond)
		// Sweeps before the connection is gone (a TLS connection closes
		// on its own goroutine) must not count it again.
		for range 20 {
			srv.advance(0)
		}
		srv.wantTimedOut(t, "linger", 1)
		srv.waitClosed(t)
	})
	t.Run("client that never stops is cut off", func(t *testing.T) {
		srv := tr.startClocked(t, engine.Options{})
		c := tr.dial(t, srv.Server)
		lingering(t, srv, c)
		// A chunk every step, each within LingerIdle of the last, the
		// last just before LingerTotal.
		step := engine.LingerIdle - time.Millisecond
		n := int(engine.LingerTotal / step)
		for range n {
			srv.advance(step)
			send(t, srv, c)
		}
		srv.advance(engine.LingerTotal - time.Duration(n)*step - time.Millisecond)
		send(t, srv, c)
		srv.wantTimedOut(t, "linger", 0)
		srv.advance(time.Millisecond)
		srv.wantTimedOut(t, "linger", 1)
		srv.waitClosed(t)
	})
	t.Run("more than LingerMaxRead is cut off", func(t *testing.T) {
		srv := tr.startClocked(t, engine.Options{})
		c := tr.dial(t, srv.Server)
		lingering(t, srv, c)
		// The clock does not move: only the bytes can end the lingering.
		go func() {
			chunk := []byte(strings.Repeat("b", 64<<10))
			for range 2 * engine.LingerMaxRead / len(chunk) {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		}()
		srv.waitClosed(t)
		srv.wantTimedOut(t, "linger", 0)
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
	if took, got := closedWithin(t, over, 30*time.Second); got != "" {
		t.Fatalf("connection over the limit answered %q after %v; want it closed at once", got, took)
	}
	conns[0].Close()
	// The server counts the close when it sees it; retry briefly.
	var resp string
	var err error
	if !testutil.Eventually(testutil.Patience, func() bool {
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
	if _, got := closedWithin(t, over, 30*time.Second); got != "" {
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
