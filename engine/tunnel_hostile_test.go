package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestTunnelHostileUpstream answers a WebSocket upgrade the ways a hostile
// upstream would: a head that never ends, interim answers that never end,
// a bare CR in the reason phrase or a field (of a refusal and of a 101).
// redirectd reads at most a head's bound of any of it, answers 502 for
// what is no answer, and writes no byte that could start a field of the
// upstream's choosing.
func TestTunnelHostileUpstream(t *testing.T) {
	endless := func(prefix, unit string) func(rc *rawConn, sent *atomic.Int64) {
		return func(rc *rawConn, sent *atomic.Int64) {
			rc.c.Write([]byte(prefix))
			chunk := []byte(strings.Repeat(unit, 4096/len(unit)))
			for sent.Load() < 64<<20 {
				rc.c.SetWriteDeadline(time.Now().Add(testutil.Patience))
				n, err := rc.c.Write(chunk)
				sent.Add(int64(n))
				if err != nil {
					return
				}
			}
		}
	}
	once := func(answer string) func(rc *rawConn, sent *atomic.Int64) {
		return func(rc *rawConn, sent *atomic.Int64) {
			rc.c.Write([]byte(answer))
			rc.unreadWithin(500 * time.Millisecond)
		}
	}
	for _, tc := range []struct {
		name   string
		answer func(rc *rawConn, sent *atomic.Int64)
		status string // the client's status line starts so
		want   string // in the client's head
	}{
		{"endless head", endless("HTTP/1.1 403 Forbidden\r\n", "X-Long: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n"), "HTTP/1.1 502", ""},
		{"endless field", endless("HTTP/1.1 403 Forbidden\r\nX-Long: ", "a"), "HTTP/1.1 502", ""},
		{"endless interim answers", endless("", "HTTP/1.1 102 Processing\r\n\r\n"), "HTTP/1.1 502", ""},
		{"CR in a refusal's reason", once("HTTP/1.1 403 Forbidden\rSet-Cookie: sid=attacker\rContent-Length: 0\r\nContent-Length: 4\r\n\r\nnope"),
			"HTTP/1.1 403 ", "Content-Length: 4"},
		{"CR in a 101's reason", once("HTTP/1.1 101 Switching\rSet-Cookie: sid=attacker\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"),
			"HTTP/1.1 101 ", "Upgrade: websocket"},
		{"CR in a 101's field", once("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-A: 1\rSet-Cookie: sid=attacker\r\n\r\n"),
			"HTTP/1.1 502", ""}, // as nginx: an upstream's invalid field is no answer
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent atomic.Int64
			up := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
				if _, err := rc.readHead(5 * time.Second); err != nil {
					return
				}
				tc.answer(rc, &sent)
			})
			pool := upstream.New(upstream.Config{Servers: []string{up.addr}, ConnectTimeout: time.Second,
				ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxConnsPerServer: 4}, nil)
			t.Cleanup(pool.Close)
			srv := startServerWith(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}})
			c := dial(t, srv)
			c.SetDeadline(time.Now().Add(testutil.Patience))
			io.WriteString(c, upgradeHead)
			br := bufio.NewReader(c)
			var head strings.Builder
			for {
				l, err := br.ReadString('\n')
				if err != nil {
					t.Fatalf("reading the answer: %v after %q", err, head.String())
				}
				head.WriteString(l)
				if l == "\r\n" {
					break
				}
			}
			got := head.String()
			if !strings.HasPrefix(got, tc.status) || !strings.Contains(got, tc.want) {
				t.Errorf("head %q, want it to start %q and hold %q", got, tc.status, tc.want)
			}
			if strings.Count(got, "\r") != strings.Count(got, "\r\n") || strings.Contains(got, "X-Long") {
				t.Errorf("head %q holds a bare CR or the upstream's endless field", got)
			}
			if n := sent.Load(); n > 16<<20 {
				t.Errorf("the upstream wrote %d bytes before redirectd gave up; want it stopped near the 64 KiB bound", n)
			}
			resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(got)), nil)
			if err != nil {
				t.Fatalf("the client's head does not parse: %v", err)
			}
			if v := resp.Header.Values("Set-Cookie"); len(v) > 0 {
				t.Errorf("the upstream's bytes made a field of their own: Set-Cookie %q", v)
			}
		})
	}
}
