package engine_test

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// countedConn counts the bytes read from a connection.
type countedConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestH2ClientClose: once the client closes its HTTP/2 connection (its
// close_notify, then its TCP end), the server closes without a
// close_notify of its own, as nginx does: no byte follows the answer.
// An HTTP/1.1 connection the client closes still gets one.
func TestH2ClientClose(t *testing.T) {
	t.Parallel()
	srv := startH2(t, engine.Options{})
	_, roots := testCertificate(t)
	for _, tc := range []struct {
		proto string
		alert bool
	}{{"h2", false}, {"http/1.1", true}} {
		raw, err := net.DialTimeout("tcp", srv.TLSAddr(), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		cc := &countedConn{Conn: raw}
		c := tls.Client(cc, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", NextProtos: []string{tc.proto}})
		c.SetDeadline(time.Now().Add(testutil.Patience))
		if tc.proto == "h2" {
			fr := http2.NewFramer(c, c)
			io.WriteString(c, http2.ClientPreface)
			fr.WriteSettings()
			var blk []byte
			enc := hpack.NewEncoder(&appender{&blk})
			for _, f := range [][2]string{{":method", "GET"}, {":scheme", "https"}, {":authority", "a"}, {":path", "/old"}} {
				enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
			}
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: blk, EndStream: true, EndHeaders: true})
			// A PING after the request: its ack follows everything the
			// server sends with the answer.
			fr.WritePing(false, [8]byte{1})
			for {
				f, err := fr.ReadFrame()
				if err != nil {
					t.Fatalf("h2: %v before the answer", err)
				}
				if p, ok := f.(*http2.PingFrame); ok && p.IsAck() {
					break
				}
			}
		} else {
			io.WriteString(c, "GET /old HTTP/1.1\r\nHost: a\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("http/1.1: %v before the answer", err)
			}
			io.Copy(io.Discard, resp.Body)
		}
		before := cc.n.Load()
		c.CloseWrite() // close_notify
		raw.(*net.TCPConn).CloseWrite()
		if _, err := io.Copy(io.Discard, cc); err != nil && !isReset(err) {
			t.Fatalf("%s: %v after the client closed", tc.proto, err)
		}
		raw.Close()
		if n := cc.n.Load() - before; (n > 0) != tc.alert {
			t.Errorf("%s: the server sent %d bytes after the client closed, want a close_notify: %v", tc.proto, n, tc.alert)
		}
	}
}

// appender is an io.Writer appending to a slice.
type appender struct{ b *[]byte }

func (a *appender) Write(p []byte) (int, error) { *a.b = append(*a.b, p...); return len(p), nil }
