package engine_test

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// metricsOf returns the server's metrics text.
func metricsOf(srv *engine.Server) string {
	var b bytes.Buffer
	srv.WriteMetrics(&b)
	return b.String()
}

// TestPoolWaitTimeout: with every pooled connection busy, a request waits
// pool_wait_timeout for one, then gets 503 with Retry-After, counted as
// pool_full; it was a 502 at once.
func TestPoolWaitTimeout(t *testing.T) { testPoolWaitTimeout(t, plainTCP) }

func testPoolWaitTimeout(t *testing.T, tr transport) {
	release := make(chan struct{})
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		for {
			head, err := rc.readHead(5 * time.Second)
			if err != nil {
				return
			}
			u.heads <- head
			if strings.HasPrefix(head, "GET /hold ") {
				select {
				case <-release:
				case <-time.After(5 * time.Second):
				}
			}
			io.WriteString(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	srv := tr.startProxy(t, upstream.Config{Servers: []string{u.addr}, MaxConnsPerServer: 1, PoolWaitTimeout: 300 * time.Millisecond},
		engine.UpstreamOptions{})
	holder := tr.dial(t, srv)
	io.WriteString(holder, "GET /hold HTTP/1.1\r\nHost: a.example\r\n\r\n")
	// The holder's request takes the one connection.
	if head := u.nextHead(t); !strings.HasPrefix(head, "GET /hold ") {
		t.Fatalf("the upstream got %q first, want the holder's request", head)
	}

	c := tr.dial(t, srv)
	start := time.Now()
	io.WriteString(c, "GET /x HTTP/1.1\r\nHost: a.example\r\n\r\n")
	resp, body := readFull(t, bufio.NewReader(c), "GET")
	waited := time.Since(start)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("got %d (Retry-After %q) %q after %v, want 503 with Retry-After: 1", resp.StatusCode, resp.Header.Get("Retry-After"), body, waited)
	}
	if waited < 250*time.Millisecond {
		t.Errorf("answered after %v, before pool_wait_timeout (300ms)", waited)
	}
	if m := metricsOf(srv); !strings.Contains(m, `result="pool_full"} 1`) {
		t.Errorf("pool_full not counted:\n%s", m)
	}

	// A connection freed within the wait is used: it is freed once the
	// server forwards both requests (then the exchange of /y waits for
	// it, or is about to).
	io.WriteString(c, "GET /y HTTP/1.1\r\nHost: a.example\r\n\r\n")
	waitForwards(t, srv, 2)
	close(release)
	if resp, body := readFull(t, bufio.NewReader(c), "GET"); resp.StatusCode != 200 {
		t.Fatalf("after the holder's answer: got %d %q, want 200", resp.StatusCode, body)
	}
}

// TestSendTimeout: a client that reads nothing of a relayed answer is
// closed after send_timeout, which frees the upstream connection; the
// relay used to wait for it forever, holding the upstream connection. On
// the fake clock: open a millisecond before send_timeout has passed since
// the client last took bytes, closed at it. The kernel may still take
// bytes of the buffer now and then (its socket buffers are not the
// test's); the server counts that as the client taking some, from the
// sweep that sees it, so the test starts the count again from there.
func TestSendTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	up := endlessUpstream(t)
	srv := plainTCP.startClockedProxy(t, upstream.Config{Servers: []string{up.addr}}, engine.UpstreamOptions{SendTimeout: timeout})
	c := plainTCP.dial(t, srv.Server)
	io.WriteString(c, "GET /download HTTP/1.1\r\nHost: a.example\r\n\r\n")
	// The client reads nothing. A bounded number of restarts: the
	// kernel's buffers take a bounded number of bytes.
	for restart := 0; ; restart++ {
		if restart == 100 {
			t.Fatal("the client's buffers took bytes at 100 sweeps running")
		}
		st := srv.sendWait(t)
		srv.advance(time.Duration(st.SendSince + int64(timeout) - time.Millisecond.Nanoseconds() - srv.now()))
		cs := engine.Conns(srv.Server)
		if len(cs) == 0 {
			t.Fatalf("closed a millisecond before send_timeout (after %d restarts)", restart)
		}
		if !cs[0].SendWait || cs[0].SendSince != st.SendSince {
			continue // the kernel took bytes: the count starts again
		}
		srv.advance(time.Millisecond)
		if cs := engine.Conns(srv.Server); len(cs) == 0 {
			t.Logf("closed at send_timeout, after %d restarts", restart)
			break
		} else if cs[0].SendWait && cs[0].SendSince != srv.now() {
			t.Fatalf("still open at send_timeout, since %v without bytes taken", time.Duration(srv.now()-cs[0].SendSince))
		}
	}
	select {
	case <-up.gone:
	case <-time.After(30 * time.Second):
		t.Fatal("the upstream connection is still held 30s after the send timeout")
	}
	if m := metricsOf(srv.Server); !strings.Contains(m, `timeout="send"} 1`) {
		t.Errorf("send timeout not counted:\n%s", m)
	}
}

// sendWait waits until the answer of the server's one connection waits
// for the client to take its outbound buffer, and returns its state.
func (s *clockedServer) sendWait(t *testing.T) engine.ConnState {
	t.Helper()
	var st engine.ConnState
	s.waitConn(t, "the answer to wait for the client", func(cs engine.ConnState) bool {
		st = cs
		return cs.SendWait
	})
	return st
}

// endless is an upstream that answers a body of a GiB and writes it until
// the connection fails, then sends on gone.
type endless struct {
	addr string
	gone chan time.Time
}

func endlessUpstream(t *testing.T) endless {
	gone := make(chan time.Time, 1)
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		if _, err := rc.readHead(5 * time.Second); err != nil {
			return
		}
		io.WriteString(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n")
		chunk := make([]byte, 64<<10)
		for {
			rc.c.SetWriteDeadline(time.Now().Add(20 * time.Second))
			if _, err := rc.c.Write(chunk); err != nil {
				gone <- time.Now()
				return
			}
		}
	})
	return endless{u.addr, gone}
}

// testSendTimeout is TestSendTimeout on real time, for the TLS bridge,
// whose writes to the client are bounded by a socket deadline (tlsport).
func testSendTimeout(t *testing.T, tr transport) {
	u := endlessUpstream(t)
	srv := tr.startProxy(t, upstream.Config{Servers: []string{u.addr}}, engine.UpstreamOptions{SendTimeout: 300 * time.Millisecond})
	c := tr.dial(t, srv)
	start := time.Now()
	io.WriteString(c, "GET /download HTTP/1.1\r\nHost: a.example\r\n\r\n")
	// The client reads nothing.
	select {
	case at := <-u.gone:
		t.Logf("upstream connection closed %v after the request", at.Sub(start))
	case <-time.After(8 * time.Second):
		t.Fatal("the upstream connection is still held 8s after the client stopped reading")
	}
	if m := metricsOf(srv); !strings.Contains(m, `timeout="send"} 1`) {
		t.Errorf("send timeout not counted:\n%s", m)
	}
}
