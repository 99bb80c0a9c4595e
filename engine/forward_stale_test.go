package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// TestForwardStaleIdleConnection: an upstream answers a request, then,
// while its connection is idle in the pool, writes a second answer meant
// for nobody (carrying a session cookie), or closes it. The next client,
// a POST from someone else, must get an answer to its own request from a
// fresh connection, never those bytes; the closed connection is counted.
func TestForwardStaleIdleConnection(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func(rc *rawConn)
	}{
		{"unsolicited answer", func(rc *rawConn) {
			rc.c.Write([]byte("HTTP/1.1 200 OK\r\nSet-Cookie: sid=user-A-session\r\nContent-Length: 6\r\n\r\nstolen"))
		}},
		{"closed", func(rc *rawConn) { rc.c.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var conns atomic.Int32
			// answered: the first client has its answer; stale: the
			// upstream has written its extra bytes (or closed), which are
			// then in the pooled connection's socket (loopback).
			answered, stale := make(chan struct{}), make(chan struct{})
			up := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
				n := conns.Add(1)
				for i := 0; ; i++ {
					head, err := rc.readHead(5 * time.Second)
					if err != nil {
						return
					}
					if strings.HasPrefix(head, "POST") {
						if _, err := rc.readBody(len("body"), 5*time.Second); err != nil {
							return
						}
					}
					body := fmt.Sprintf("conn %d answer %d", n, i)
					rc.c.Write([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)))
					if n == 1 && i == 0 {
						select {
						case <-answered:
						case <-t.Context().Done():
							return
						}
						tc.after(rc)
						close(stale)
					}
				}
			})
			pool := upstream.New(upstream.Config{Servers: []string{up.addr}, ConnectTimeout: time.Second,
				ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxConnsPerServer: 1}, nil)
			t.Cleanup(pool.Close)
			srv := startServerWith(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}})

			a := dial(t, srv)
			io.WriteString(a, "GET /miss/a HTTP/1.1\r\nHost: site.example\r\n\r\n")
			if resp, body := readFull(t, bufio.NewReader(a), "GET"); resp.StatusCode != 200 || body != "conn 1 answer 0" {
				t.Fatalf("first client: %d %q", resp.StatusCode, body)
			}
			close(answered)
			select {
			case <-stale:
			case <-time.After(30 * time.Second):
				t.Fatal("the upstream did not write its extra bytes") // only ends a test that would hang
			}
			b := dial(t, srv)
			io.WriteString(b, "POST /miss/b HTTP/1.1\r\nHost: site.example\r\nContent-Length: 4\r\n\r\nbody")
			resp, body := readFull(t, bufio.NewReader(b), "POST")
			if resp.StatusCode != 200 || body != "conn 2 answer 0" || resp.Header.Get("Set-Cookie") != "" {
				t.Fatalf("second client got %d %q %v; want its own answer from a new connection", resp.StatusCode, body, resp.Header)
			}
			if got := metric(srv, `redirectd_upstream_idle_closed_total{group="default",server="`+up.addr+`"}`); got != 1 {
				t.Errorf("idle connections closed: %v, want 1", got)
			}
		})
	}
}
