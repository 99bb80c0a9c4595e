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
// relay used to wait for it forever, holding the upstream connection.
func TestSendTimeout(t *testing.T) { testSendTimeout(t, plainTCP) }

func testSendTimeout(t *testing.T, tr transport) {
	upstreamGone := make(chan time.Time, 1)
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		if _, err := rc.readHead(5 * time.Second); err != nil {
			return
		}
		io.WriteString(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n")
		chunk := make([]byte, 64<<10)
		for {
			rc.c.SetWriteDeadline(time.Now().Add(20 * time.Second))
			if _, err := rc.c.Write(chunk); err != nil {
				upstreamGone <- time.Now()
				return
			}
		}
	})
	srv := tr.startProxy(t, upstream.Config{Servers: []string{u.addr}}, engine.UpstreamOptions{SendTimeout: 300 * time.Millisecond})
	c := tr.dial(t, srv)
	start := time.Now()
	io.WriteString(c, "GET /download HTTP/1.1\r\nHost: a.example\r\n\r\n")
	// The client reads nothing.
	select {
	case at := <-upstreamGone:
		t.Logf("upstream connection closed %v after the request", at.Sub(start))
	case <-time.After(8 * time.Second):
		t.Fatal("the upstream connection is still held 8s after the client stopped reading")
	}
	if m := metricsOf(srv); !strings.Contains(m, `timeout="send"} 1`) {
		t.Errorf("send timeout not counted:\n%s", m)
	}
}
