package engine_test

import (
	"bufio"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// listenerOption reads a TCP option of every listening socket of this
// process bound to addr.
func listenerOption(t *testing.T, addr string, opt int) []int {
	t.Helper()
	want := netip.MustParseAddrPort(addr)
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		fd, _ := strconv.Atoi(e.Name())
		if v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || v != 1 {
			continue
		}
		sa, err := unix.Getsockname(fd)
		in4, ok := sa.(*unix.SockaddrInet4)
		if err != nil || !ok || in4.Port != int(want.Port()) {
			continue
		}
		v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, opt)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestDeferAccept checks that DeferAccept reaches every loop's listening
// socket, that requests are answered as before, and that a connection
// that never sends a byte is still handed over and timed out.
func TestDeferAccept(t *testing.T) {
	const idle = 10 * time.Second
	srv := plainTCP.startClocked(t, engine.Options{DeferAccept: true, EventLoops: 2, IdleTimeout: idle})
	var got []int
	testutil.Eventually(testutil.Patience, func() bool {
		got = listenerOption(t, srv.Addr(), unix.TCP_DEFER_ACCEPT)
		return len(got) == 2 && got[0] > 0 && got[1] > 0
	})
	if len(got) != 2 || got[0] == 0 || got[1] == 0 {
		t.Fatalf("TCP_DEFER_ACCEPT on the listening sockets: %v, want two set", got)
	}

	c := dial(t, srv.Server)
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
	if a := readAnswer(t, bufio.NewReader(c), "GET"); a.Status != 301 {
		t.Fatalf("answer %d, want 301", a.Status)
	}
	c.Close()
	srv.waitClosed(t)

	// The kernel hands the silent connection over after about a second
	// of real time; from then, its idle time runs on the server's clock.
	silent := dial(t, srv.Server)
	srv.settled(t, silent)
	srv.advance(idle)
	srv.wantTimedOut(t, "idle", 1)
	silent.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); err == nil {
		t.Fatal("a silent connection got bytes")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a silent connection timed out on the server was not closed")
	}
}

// TestTLSDeferAccept checks that DeferAccept reaches the TLS listener's
// socket too, that a handshake and a request go through, and that a
// connection that never sends its ClientHello is still handed over and
// closed by the handshake timeout.
func TestTLSDeferAccept(t *testing.T) {
	t.Parallel()
	opts := engine.Options{DeferAccept: true, TLS: testTLSOptions(t)}
	opts.TLS.HandshakeTimeout = 300 * time.Millisecond
	srv := overTLS.start(t, opts)
	if got := listenerOption(t, srv.TLSAddr(), unix.TCP_DEFER_ACCEPT); len(got) != 1 || got[0] == 0 {
		t.Fatalf("TCP_DEFER_ACCEPT on the TLS listening socket: %v, want one set", got)
	}
	c := overTLS.dial(t, srv)
	io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
	if a := readAnswer(t, bufio.NewReader(c), "GET"); a.Status != 301 {
		t.Fatalf("answer %d, want 301", a.Status)
	}
	silent, err := net.DialTimeout("tcp", srv.TLSAddr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// The handshake's deadline is real time: the read's is only there to
	// end a test that would hang.
	silent.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); err == nil {
		t.Fatal("a silent connection got bytes")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a silent connection was not closed by the handshake timeout")
	}
}
