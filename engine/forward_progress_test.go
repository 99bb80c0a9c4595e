package engine_test

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
)

// readBody consumes n bytes after the head on rc.
func (rc *rawConn) readBody(n int, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		rc.mu.Lock()
		if len(rc.got)-rc.pos >= n {
			b := string(rc.got[rc.pos : rc.pos+n])
			rc.pos += n
			rc.mu.Unlock()
			return b, nil
		}
		rc.mu.Unlock()
		if err := rc.fill(deadline); err != nil {
			return "", err
		}
	}
}

// TestUpstreamSlowAnswer: read_timeout counts between bytes. An answer
// streamed over 1.5 s with 100 ms between pieces passes a 1 s
// read_timeout whole; fasthttp's deadline per exchange cut it at 1 s.
// The gap is a tenth of the timeout so that a loaded machine, which
// stretches the sleeps, cannot make one gap reach it; a longer stream
// only proves more.
func TestUpstreamSlowAnswer(t *testing.T) { testUpstreamSlowAnswer(t, plainTCP) }

func testUpstreamSlowAnswer(t *testing.T, tr transport) {
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		if _, err := rc.readHead(5 * time.Second); err != nil {
			return
		}
		io.WriteString(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n")
		for i := range 15 {
			time.Sleep(100 * time.Millisecond)
			fmt.Fprint(rc.c, i%10)
		}
	})
	srv := tr.startProxy(t, upstream.Config{Servers: []string{u.addr}, ReadTimeout: time.Second}, engine.UpstreamOptions{})
	c := tr.dial(t, srv)
	io.WriteString(c, "GET /events HTTP/1.1\r\nHost: a.example\r\n\r\n")
	resp, body := readFull(t, bufio.NewReader(c), "GET")
	if resp.StatusCode != 200 || body != "012345678901234" {
		t.Fatalf("got %d %q, want 200 \"012345678901234\"", resp.StatusCode, body)
	}
}

// TestUpstreamSlowUpload: write_timeout counts between bytes. A body sent
// over 1.5 s reaches the upstream whole under a 1 s write_timeout;
// fasthttp's write deadline per exchange cut it at 1 s. The gap is a
// tenth of the timeout, as in TestUpstreamSlowAnswer.
func TestUpstreamSlowUpload(t *testing.T) { testUpstreamSlowUpload(t, plainTCP) }

func testUpstreamSlowUpload(t *testing.T, tr transport) {
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		if _, err := rc.readHead(5 * time.Second); err != nil {
			return
		}
		body, err := rc.readBody(15, 5*time.Second)
		if err != nil {
			return
		}
		fmt.Fprintf(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	})
	srv := tr.startProxy(t, upstream.Config{Servers: []string{u.addr}, WriteTimeout: time.Second}, engine.UpstreamOptions{})
	c := tr.dial(t, srv)
	io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: a.example\r\nContent-Length: 15\r\n\r\n")
	for i := range 15 {
		time.Sleep(100 * time.Millisecond)
		fmt.Fprint(c, i%10)
	}
	resp, body := readFull(t, bufio.NewReader(c), "POST")
	if resp.StatusCode != 200 || body != "012345678901234" {
		t.Fatalf("got %d %q, want 200 \"012345678901234\"", resp.StatusCode, body)
	}
}

// TestUpstreamLargeAnswerHead: an answer head of up to 64 KiB is relayed;
// fasthttp's default 4 KiB read buffer made anything over 4 KiB a 502. A
// bigger one is a 502.
func TestUpstreamLargeAnswerHead(t *testing.T) {
	t.Parallel()
	testUpstreamLargeAnswerHead(t, plainTCP)
}

func testUpstreamLargeAnswerHead(t *testing.T, tr transport) {
	for _, tc := range []struct {
		fields int // bytes of X-Big values
		want   int
	}{
		{8 << 10, 200},
		{60 << 10, 200},
		{70 << 10, 502},
	} {
		t.Run(fmt.Sprint(tc.fields), func(t *testing.T) {
			big := strings.Repeat("v", 1000)
			u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
				if _, err := rc.readHead(5 * time.Second); err != nil {
					return
				}
				var b strings.Builder
				b.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n")
				for i := 0; i < tc.fields/len(big); i++ {
					fmt.Fprintf(&b, "X-Big-%d: %s\r\n", i, big)
				}
				b.WriteString("\r\nok")
				io.WriteString(rc.c, b.String())
				rc.unreadWithin(time.Second)
			})
			srv := tr.startProxy(t, upstream.Config{Servers: []string{u.addr}}, engine.UpstreamOptions{})
			c := tr.dial(t, srv)
			io.WriteString(c, "GET /big HTTP/1.1\r\nHost: a.example\r\n\r\n")
			resp, body := readFull(t, bufio.NewReader(c), "GET")
			if resp.StatusCode != tc.want {
				t.Fatalf("got %d %q, want %d", resp.StatusCode, body, tc.want)
			}
			if tc.want == 200 && (body != "ok" || resp.Header.Get("X-Big-7") != big) {
				t.Fatalf("answer not relayed whole: body %q, X-Big-7 %d bytes", body, len(resp.Header.Get("X-Big-7")))
			}
		})
	}
}
