package engine_test

import (
	"bufio"
	"io"
	"testing"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/engine/upstream"
)

// An HTTP/1.0 client that asked to stay open keeps its connection after an
// error the forward answers itself (answerError used
// to build its answer for a made-up HTTP/1.1 request, so it carried no
// Connection: keep-alive and the client took it as the end).
func TestForwardErrorKeepsHTTP10KeepAlive(t *testing.T) {
	t.Parallel()
	testForwardErrorKeepsHTTP10KeepAlive(t, plainTCP)
}

func testForwardErrorKeepsHTTP10KeepAlive(t *testing.T, tr transport) {
	addr := testport.Free(t) // held, so nothing listens: every forward gets 502
	srv := tr.startProxy(t, upstream.Config{Servers: []string{addr}}, engine.UpstreamOptions{})
	c := tr.dial(t, srv)
	br := bufio.NewReader(c)
	for i := range 2 {
		io.WriteString(c, "GET /miss HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n")
		resp, _ := readFull(t, br, "GET")
		if resp.StatusCode != 502 || resp.Header.Get("Connection") != "keep-alive" || resp.Close {
			t.Fatalf("request %d: got %d with Connection %q, want 502 with Connection: keep-alive",
				i+1, resp.StatusCode, resp.Header.Get("Connection"))
		}
	}
	// The same client without keep-alive is closed.
	io.WriteString(c, "GET /miss HTTP/1.0\r\nHost: a\r\n\r\n")
	resp, _ := readFull(t, br, "GET")
	if resp.StatusCode != 502 || !resp.Close {
		t.Fatalf("got %d, close %v; want 502 and the connection closed", resp.StatusCode, resp.Close)
	}
	expectClosed(t, br)
}
