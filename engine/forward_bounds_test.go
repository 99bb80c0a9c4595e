package engine_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// stallAfterHead reads a request head, answers with answer (nothing when
// empty), then reads nothing more until the test ends.
func stallAfterHead(t *testing.T, answer string) func(u *rawUpstream, rc *rawConn) {
	return func(u *rawUpstream, rc *rawConn) {
		if _, err := rc.readHead(5 * time.Second); err != nil {
			return
		}
		if answer != "" {
			io.WriteString(rc.c, answer)
		}
		<-t.Context().Done()
	}
}

// sendUntilRefused writes up to total bytes in 64 KiB pieces and returns
// how many the server took before it closed the connection (or all).
func sendUntilRefused(c net.Conn, total int) *atomic.Int64 {
	var sent atomic.Int64
	go func() {
		chunk := make([]byte, 64<<10)
		for sent.Load() < int64(total) {
			c.SetWriteDeadline(time.Now().Add(testutil.Patience))
			n, err := c.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	return &sent
}

const (
	mib       = 1 << 20
	sentLimit = 64 * mib
)

// TestForwardStalledBodyBounded: a body sent at line rate to an upstream
// that takes none of it is held up to the bound, then answered 413 and
// closed; the server used to read on into memory without limit, and each
// read refreshed the body timeout.
func TestForwardStalledBodyBounded(t *testing.T) {
	u := startRawUpstream(t, stallAfterHead(t, ""))
	srv := startProxy(t, upstream.Config{Servers: []string{u.addr}, WriteTimeout: 30 * time.Second},
		engine.UpstreamOptions{BodyTimeout: 30 * time.Second})
	c := dial(t, srv)
	c.SetReadDeadline(time.Now().Add(testutil.Patience))
	io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: a.example\r\nContent-Length: 1073741824\r\n\r\n")
	sent := sendUntilRefused(c, sentLimit)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "POST"})
	if err != nil {
		t.Fatalf("no answer (%d MiB sent): %v", sent.Load()/mib, err)
	}
	if resp.StatusCode != 413 {
		t.Fatalf("got %d, want 413", resp.StatusCode)
	}
	if n := sent.Load(); n >= sentLimit {
		t.Errorf("the server took all %d MiB of a stalled body", n/mib)
	}
	t.Logf("413 after %d MiB", sent.Load()/mib)
}

// wsUpgradeHead asks for a WebSocket.
const wsUpgradeHead = "GET /ws HTTP/1.1\r\nHost: a.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
	"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

const switched = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"

// openTunnel sends the upgrade over tr and reads the 101.
func (tr transport) openTunnel(t *testing.T, srv *engine.Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := tr.dial(t, srv)
	c.SetDeadline(time.Now().Add(testutil.Patience))
	io.WriteString(c, wsUpgradeHead)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	return c, br
}

// TestTunnelStalledBounded: a tunnel whose upstream takes nothing holds
// at most the bound of what the client sends, then closes; it used to
// read on into memory without limit.
func TestTunnelStalledBounded(t *testing.T) {
	u := startRawUpstream(t, stallAfterHead(t, switched))
	srv := startProxy(t, upstream.Config{Servers: []string{u.addr}}, engine.UpstreamOptions{})
	c, br := plainTCP.openTunnel(t, srv)
	sent := sendUntilRefused(c, sentLimit)
	if _, err := io.Copy(io.Discard, br); err != nil && !isReset(err) {
		t.Fatalf("waiting for the close: %v (%d MiB sent)", err, sent.Load()/mib)
	}
	if n := sent.Load(); n >= sentLimit {
		t.Errorf("the server took all %d MiB sent into a stalled tunnel", n/mib)
	}
}

// TestTunnelIdleTimeout: a tunnel that moves nothing either way for
// tunnel_idle_timeout is closed, on a fake clock: open a millisecond
// before, closed at it; a byte from the client starts the time again. A
// tunnel used to have no timeout.
func TestTunnelIdleTimeout(t *testing.T) { testTunnelIdleTimeout(t, plainTCP) }

func testTunnelIdleTimeout(t *testing.T, tr transport) {
	const idle = 2 * time.Second
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		if _, err := rc.readHead(5 * time.Second); err != nil {
			return
		}
		io.WriteString(rc.c, switched)
		rc.unreadWithin(30 * time.Second) // reads what comes until closed
	})
	srv := tr.startClockedProxy(t, upstream.Config{Servers: []string{u.addr}}, engine.UpstreamOptions{TunnelIdleTimeout: idle})
	c, br := tr.openTunnel(t, srv.Server)
	// The 101 was written by the loop, which switched the connection in
	// the same task: the idle time runs from now.
	srv.waitConn(t, "the tunnel to open", func(cs engine.ConnState) bool { return cs.Forwarding && cs.Moved == srv.now() })
	for i := range 3 {
		srv.advance(idle - time.Millisecond)
		srv.wantTimedOut(t, "tunnel", 0)
		if _, err := c.Write([]byte{'x'}); err != nil {
			t.Fatalf("the tunnel closed while bytes moved: %v", err)
		}
		// The byte went through: the idle time restarts now.
		want := "\r\n\r\n" + strings.Repeat("x", i+1)
		testutil.WaitFor(t, 30*time.Second, "the upstream to receive "+want, func() bool {
			return strings.HasSuffix(u.connections()[0].received(), want)
		})
		srv.waitConn(t, "the idle time to restart", func(cs engine.ConnState) bool { return cs.Moved == srv.now() })
	}
	srv.advance(idle - time.Millisecond)
	srv.wantTimedOut(t, "tunnel", 0)
	srv.advance(time.Millisecond)
	srv.wantTimedOut(t, "tunnel", 1)
	c.SetReadDeadline(time.Now().Add(30 * time.Second)) // only ends a test that would hang
	if _, err := io.Copy(io.Discard, br); err != nil && !isReset(err) {
		t.Fatalf("the idle tunnel was not closed: %v", err)
	}
	srv.waitClosed(t)
}

func isReset(err error) bool {
	var ne *net.OpError
	return errorsAs(err, &ne) && !ne.Timeout()
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// TestForwardBodyTimeoutWithoutProgress: the body timeout counts from the
// last body bytes passed on to the upstream. A client that keeps sending
// to an upstream that takes nothing gets 408 once the server stops
// passing its bytes on; every read used to restart the body clock, so it
// never fired.
//
// On the fake clock: the client sends until the server holds its bytes
// (the upstream takes none), then a few bytes more between two looks: no
// 408 a millisecond before body_timeout has passed since bytes last moved,
// a 408 at it. The kernel may still pass bytes on now and then (its
// socket buffers are not the test's); that moves the body clock, from
// when the server passed them, and the test starts its count again.
func TestForwardBodyTimeoutWithoutProgress(t *testing.T) {
	testForwardBodyTimeoutWithoutProgress(t, plainTCP)
}

func testForwardBodyTimeoutWithoutProgress(t *testing.T, tr transport) {
	const timeout = 300 * time.Millisecond
	u := startRawUpstreamOn(t, smallReceiveBuffer(), stallAfterHead(t, ""))
	srv := tr.startClockedProxy(t, upstream.Config{Servers: []string{u.addr}, WriteTimeout: 30 * time.Second},
		engine.UpstreamOptions{BodyTimeout: timeout})
	c := tr.dial(t, srv.Server)
	io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: a.example\r\nContent-Length: 1073741824\r\n\r\n")
	srv.waitForwarding(t)
	// Fill the path to the upstream until the server holds 64 KiB of
	// the body it cannot pass on; the bytes after it stay well under
	// the 1 MiB bound.
	chunk := make([]byte, 16<<10)
	for held := 0; held < 64<<10; {
		srv.advance(time.Millisecond) // so that bytes passed on show
		if _, err := c.Write(chunk); err != nil {
			t.Fatal(err)
		}
		srv.waitConn(t, "the server to read the body bytes", func(cs engine.ConnState) bool {
			held = cs.Held
			return cs.Active == srv.now()
		})
	}
	for restart := 0; ; restart++ {
		// The kernel's buffers on the way to the upstream take a
		// bounded number of bytes (tcp_wmem's 4 MiB at most, by
		// default): 2,000 looks of 4 KiB are past them.
		if restart == 2000 {
			t.Fatal("the body moved to the upstream at 2,000 looks running")
		}
		st := srv.conn(t)
		srv.advance(time.Duration(st.Moved + int64(timeout) - time.Millisecond.Nanoseconds() - srv.now()))
		srv.wantTimedOut(t, "body", 0)
		// More bytes, read and held: a read must not restart the clock.
		if _, err := c.Write(chunk[:4<<10]); err != nil {
			t.Fatal(err)
		}
		var now engine.ConnState
		srv.waitConn(t, "the server to read them", func(cs engine.ConnState) bool {
			now = cs
			return cs.Active == srv.now()
		})
		if now.Moved != st.Moved {
			continue // passed on: the count starts again
		}
		srv.advance(time.Millisecond)
		if srv.timedOut(t, "body") == 1 {
			t.Logf("408 at body_timeout, after %d restarts", restart)
			break
		}
		if cs := srv.conn(t); cs.Moved == st.Moved {
			t.Fatalf("no 408 at body_timeout, %v since the body last moved", time.Duration(srv.now()-cs.Moved))
		}
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "POST"})
	if err != nil || resp.StatusCode != 408 {
		t.Fatalf("after the body timeout: %v %v, want a 408", resp, err)
	}
}

// conn returns the state of the server's one connection.
func (s *clockedServer) conn(t *testing.T) engine.ConnState {
	t.Helper()
	var st engine.ConnState
	s.waitConn(t, "one connection", func(cs engine.ConnState) bool { st = cs; return true })
	return st
}

// smallReceiveBuffer is a ListenConfig whose connections take 4 KiB at a
// time: an upstream that reads nothing holds little of a body, so that
// the path to it fills sooner.
func smallReceiveBuffer() *net.ListenConfig {
	return &net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
}
