package engine_test

import (
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// startClockedProxy is startProxy on a fake clock (startClocked): the
// forwarding timeouts that the engine keeps (body_timeout, body_min_rate,
// send_timeout, tunnel_idle_timeout) move only with it. The upstream's
// own (connect, read, write and pool wait timeouts) are socket deadlines
// and timers, on real time.
func (tr transport) startClockedProxy(t *testing.T, cfg upstream.Config, up engine.UpstreamOptions) *clockedServer {
	t.Helper()
	up.Pool = testPool(t, cfg, nil)
	return tr.startClocked(t, engine.Options{Upstream: &up})
}

// waitForwarding waits until the server forwards the request of its one
// connection: it has read the head.
func (s *clockedServer) waitForwarding(t *testing.T) {
	t.Helper()
	s.waitConn(t, "the request to be forwarded", func(cs engine.ConnState) bool { return cs.Forwarding })
}

// sendBody writes body bytes on c, after the clock moved since bytes last
// moved, and waits until the server has taken them (the time they moved
// is now): a sweep after it counts them. They must not end the exchange,
// which would leave no forward to look at.
func (s *clockedServer) sendBody(t *testing.T, c net.Conn, data string) {
	t.Helper()
	if _, err := io.WriteString(c, data); err != nil {
		t.Fatalf("sending %d body bytes: %v", len(data), err)
	}
	s.waitConns(t, "the server to take the body bytes", func(cs []engine.ConnState) bool {
		return countConns(cs, func(c engine.ConnState) bool { return c.Forwarding && c.Moved == s.now() }) == 1
	})
}

// waitConns waits until ok holds for the connections the server holds.
func (s *clockedServer) waitConns(t *testing.T, what string, ok func([]engine.ConnState) bool) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, what, func() bool { return ok(engine.Conns(s.Server)) })
}

// countConns counts the connections for which ok holds.
func countConns(cs []engine.ConnState, ok func(engine.ConnState) bool) int {
	n := 0
	for _, c := range cs {
		if ok(c) {
			n++
		}
	}
	return n
}

// waitForwards waits until n of srv's connections have a request being
// forwarded: the server has read their heads.
func waitForwards(t *testing.T, srv *engine.Server, n int) {
	t.Helper()
	testutil.WaitFor(t, 30*time.Second, fmt.Sprintf("%d requests to be forwarded", n), func() bool {
		return countConns(engine.Conns(srv), func(c engine.ConnState) bool { return c.Forwarding }) == n
	})
}
