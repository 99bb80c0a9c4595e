package tlsport

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/internal/testutil"
)

// echo is a Handler that answers each read with its bytes upper-cased
// and closes on "q".
type echo struct {
	opened, closed atomic.Int32
}

func (e *echo) OnOpen(c gnet.Conn) ([]byte, gnet.Action) {
	e.opened.Add(1)
	c.SetContext(e)
	return nil, gnet.None
}

func (e *echo) OnTraffic(c gnet.Conn) gnet.Action {
	b, _ := c.Peek(-1)
	out := make([]byte, len(b))
	for i, x := range b {
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		out[i] = x
	}
	c.Discard(len(b))
	c.Write(out)
	if string(b) == "q" {
		return gnet.Close
	}
	return gnet.None
}

func (e *echo) OnClose(gnet.Conn, error) gnet.Action { e.closed.Add(1); return gnet.None }

func (e *echo) WaitsProxyHeader(*Conn) bool                   { return false }
func (e *echo) ProxyHeader(*Conn, []byte) (bool, gnet.Action) { return true, gnet.None }
func (e *echo) Forwarding(*Conn) bool                         { return false }
func (e *echo) IdleFrom(*Conn, time.Duration)                 {}
func (e *echo) HeaderTimeout() time.Duration                  { return time.Second }
func (e *echo) SendTimeout() time.Duration                    { return 5 * time.Second }
func (e *echo) SendTimedOut()                                 {}
func (e *echo) ServeH2(c *Conn)                               { c.Teardown() }

// TestListenerServes: a Listener does the handshake and hands the
// plaintext to its Handler as gnet would, writes what the handler wrote,
// closes on gnet.Close with OnClose called, and Stop waits for its
// connections.
func TestListenerServes(t *testing.T) {
	ca := testutil.NewCA(t)
	cert := ca.TLSCert(t, "localhost")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &echo{}
	l := New(ln, Options{Config: &tls.Config{Certificates: []tls.Certificate{cert}}, HandshakeTimeout: 5 * time.Second,
		Loops: 2, Log: slog.New(slog.DiscardHandler)}, h)
	served := make(chan struct{})
	go func() {
		defer close(served)
		l.Serve()
	}()
	c, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	for _, msg := range []string{"hello", "again"} {
		io.WriteString(c, msg)
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(br, got); err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"hello": "HELLO", "again": "AGAIN"}[msg]; string(got) != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	io.WriteString(c, "q")
	rest, err := io.ReadAll(br)
	if string(rest) != "Q" || err != nil {
		t.Fatalf("after q: %q %v, want \"Q\" then the end", rest, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l.Stop(ctx)
	<-served
	if o, cl := h.opened.Load(), h.closed.Load(); o != 1 || cl != 1 {
		t.Errorf("OnOpen ran %d times, OnClose %d; want 1 each", o, cl)
	}
}
