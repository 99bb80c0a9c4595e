package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestTunnel101HeaderPolicy: a tunnel's 101 goes out by the policy of
// every relayed answer (forward.appendAnswerFields): its Upgrade and
// Connection kept, the upstream's other hop-by-hop fields and
// Content-Length dropped, and on the TLS port the server's own
// Strict-Transport-Security in place of the upstream's. The 101 used to
// be built apart and carried the upstream's fields as they came.
func TestTunnel101HeaderPolicy(t *testing.T) {
	for _, tr := range []transport{plainTCP, overTLS} {
		name := "plain"
		if tr == overTLS {
			name = "tls"
		}
		t.Run(name, func(t *testing.T) { testTunnel101HeaderPolicy(t, tr) })
	}
}

func testTunnel101HeaderPolicy(t *testing.T, tr transport) {
	up := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		if _, err := rc.readHead(5 * time.Second); err != nil {
			return
		}
		rc.c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade, X-Hop\r\n" +
			"Keep-Alive: timeout=5\r\nX-Hop: 1\r\nContent-Length: 0\r\nStrict-Transport-Security: max-age=1\r\n" +
			"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n"))
		rc.unreadWithin(time.Second)
	})
	pool := upstream.New(upstream.Config{Servers: []string{up.addr}, ConnectTimeout: time.Second,
		ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxConnsPerServer: 4}, nil)
	t.Cleanup(pool.Close)
	opts := engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}}
	if tr == overTLS {
		opts.TLS = testTLSOptions(t)
		opts.TLS.HSTS = "max-age=63072000"
	}
	srv := tr.start(t, opts)
	c := tr.dial(t, srv)
	c.SetDeadline(time.Now().Add(testutil.Patience))
	io.WriteString(c, upgradeHead)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "GET"})
	if err != nil || resp.StatusCode != 101 {
		t.Fatalf("upgrade: %v %v", resp, err)
	}
	var got []string
	for k, vs := range resp.Header {
		for _, v := range vs {
			got = append(got, k+": "+v)
		}
	}
	slices.Sort(got)
	want := []string{"Connection: Upgrade, X-Hop", "Sec-Websocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "Upgrade: websocket"}
	if tr == overTLS {
		want = append(want, "Strict-Transport-Security: max-age=63072000")
	} else {
		want = append(want, "Strict-Transport-Security: max-age=1")
	}
	slices.SortFunc(want, strings.Compare)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the 101's fields (-want +got):\n%s", d)
	}
}
