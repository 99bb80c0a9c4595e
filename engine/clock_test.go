package engine_test

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// fakeClock is a server's time (Options.Now) that moves only when the
// test moves it, so that a timeout test sees what happens just before a
// timeout and just after it, however slowly the machine runs the test.
type fakeClock struct{ ns atomic.Int64 }

// fakeStart is where fake clocks start: a whole second, so that a test
// can tell the Date of an answer.
var fakeStart = time.Date(2030, time.March, 4, 5, 6, 7, 0, time.UTC)

func (c *fakeClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// clockedServer is a server running on a fake clock.
type clockedServer struct {
	*engine.Server
	clk *fakeClock
}

// startClocked starts a server on a fake clock. Over TLS, the handshake's
// deadline is set past every timeout under test: a connection's idle
// time counts from the end of its handshake, from the handshake's
// deadline until then (IdleFrom), so that its Active shows the test
// whether the handshake is over (settled).
func (tr transport) startClocked(t *testing.T, opts engine.Options) *clockedServer {
	t.Helper()
	clk := &fakeClock{}
	clk.ns.Store(fakeStart.UnixNano())
	opts.Now = clk.Now
	if tr == overTLS && opts.TLS == nil {
		opts.TLS = testTLSOptions(t)
		opts.TLS.HandshakeTimeout = 2*max(opts.IdleTimeout, opts.HeaderTimeout) + time.Minute
	}
	return &clockedServer{tr.start(t, opts), clk}
}

// now is the fake time, in Unix nanoseconds.
func (s *clockedServer) now() int64 { return s.clk.ns.Load() }

// advance moves the fake clock by d and has the server look at its
// deadlines: once it returns, every timeout that passed was acted on.
func (s *clockedServer) advance(d time.Duration) {
	s.clk.ns.Add(int64(d))
	engine.Sweep(s.Server)
}

// waitConn waits until the server holds one connection and ok holds for
// it: the server has seen what the test sent.
func (s *clockedServer) waitConn(t *testing.T, what string, ok func(engine.ConnState) bool) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, what, func() bool {
		cs := engine.Conns(s.Server)
		return len(cs) == 1 && ok(cs[0])
	})
}

// settled waits until the server has opened c and, over TLS, finished
// its handshake, so that c's idle time runs from the fake clock's now.
func (s *clockedServer) settled(t *testing.T, c net.Conn) {
	t.Helper()
	if tc, ok := c.(*tls.Conn); ok {
		// The client's handshake returns after the server's has begun,
		// past its IdleFrom with the handshake's deadline.
		if err := tc.Handshake(); err != nil {
			t.Fatal(err)
		}
	}
	s.waitConn(t, "the connection's idle time to start", func(c engine.ConnState) bool { return c.Active == s.now() })
}

// timedOut is how many connections timeout (idle, header, linger) closed.
func (s *clockedServer) timedOut(t *testing.T, timeout string) int {
	t.Helper()
	var b strings.Builder
	s.WriteMetrics(&b)
	v, ok := testutil.Metric(b.String(), `redirectd_connections_timed_out_total{timeout="`+timeout+`"}`)
	if !ok {
		t.Fatalf("no %s timeout count in the metrics", timeout)
	}
	return int(v)
}

// wantTimedOut fails the test unless timeout closed n connections so far.
func (s *clockedServer) wantTimedOut(t *testing.T, timeout string, n int) {
	t.Helper()
	if got := s.timedOut(t, timeout); got != n {
		t.Fatalf("%d connections closed by the %s timeout, want %d", got, timeout, n)
	}
}

// waitClosed waits until the server holds no connection.
func (s *clockedServer) waitClosed(t *testing.T) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, "the connection to close", func() bool { return len(engine.Conns(s.Server)) == 0 })
}

// readToEnd reads what c has left until the server closes it; the read
// deadline is only there to end a test that would hang.
func readToEnd(t *testing.T, r io.Reader, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(r)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("connection still open after 30s (read %q)", got)
	}
	return string(got)
}

// TestClockFollowsOptionsNow checks that a server given a clock answers
// with its time, moved by the test, rather than the machine's.
func TestClockFollowsOptionsNow(t *testing.T) {
	srv := plainTCP.startClocked(t, engine.Options{})
	for _, step := range []time.Duration{0, 90 * time.Minute} {
		srv.advance(step)
		c := dial(t, srv.Server)
		io.WriteString(c, followUp)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got, want := resp.Header.Get("Date"), srv.clk.Now().UTC().Format(http.TimeFormat); got != want {
			t.Fatalf("Date: %s, want the fake clock's %s", got, want)
		}
	}
}
