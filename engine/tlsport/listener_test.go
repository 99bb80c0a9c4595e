package tlsport

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/internal/testutil"
)

// echo is a Handler that answers each read with its bytes upper-cased,
// "big" with 64 KiB, and closes on "q". Its send timeout is send, 5 s
// when unset; sendTimedOut counts the writes that ran past it.
type echo struct {
	opened, closed atomic.Int32
	send           time.Duration
	sendTimedOut   atomic.Int32
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
	if string(b) == "big" {
		out = bytes.Repeat([]byte("x"), 64<<10)
	}
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
func (e *echo) SendTimeout() time.Duration {
	if e.send > 0 {
		return e.send
	}
	return 5 * time.Second
}
func (e *echo) SendTimedOut()   { e.sendTimedOut.Add(1) }
func (e *echo) ServeH2(c *Conn) { c.Teardown() }

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
	c.SetDeadline(time.Now().Add(testutil.Patience))
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

// TestSendTimeout: a client that reads nothing of an answer is closed
// once a write to it has made no progress for the send timeout: the write
// is counted (SendTimedOut) at the timeout, not a millisecond before. In a synctest bubble, over
// net.Pipe: its writes wait for the reader, and its deadlines are on the
// bubble's fake clock, so the bound is exact however loaded the machine.
func TestSendTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 300 * time.Millisecond
		ca := testutil.NewCA(t)
		ln := newPipeListener()
		h := &echo{send: timeout}
		l := New(ln, Options{Config: &tls.Config{Certificates: []tls.Certificate{ca.TLSCert(t, "localhost")}}, HandshakeTimeout: 5 * time.Second,
			Loops: 1, Log: slog.New(slog.DiscardHandler)}, h)
		served := make(chan struct{})
		go func() {
			defer close(served)
			l.Serve()
		}()
		c := tls.Client(ln.dial(), &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
		if err := c.Handshake(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "big")
		// The answer's first write waits for the client, which reads
		// nothing.
		synctest.Wait()
		time.Sleep(timeout - time.Millisecond)
		synctest.Wait()
		if n := h.sendTimedOut.Load(); n != 0 || h.closed.Load() != 0 {
			t.Errorf("a millisecond before the send timeout: %d writes timed out, closed %v", n, h.closed.Load() != 0)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if n := h.sendTimedOut.Load(); n != 1 {
			t.Errorf("at the send timeout: %d writes timed out, want 1", n)
		}
		// The connection closes at once: no close_notify waits for a
		// client that takes nothing (another send timeout).
		if n := h.closed.Load(); n != 1 {
			t.Errorf("at the send timeout: OnClose ran %d times, want 1", n)
		}
		c.Close()
		l.Stop(t.Context())
		<-served
		if n := h.closed.Load(); n != 1 {
			t.Errorf("OnClose ran %d times, want 1", n)
		}
	})
}

// pipeListener is a net.Listener of net.Pipe connections, which a
// synctest bubble can wait on and whose deadlines follow its clock.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// dial returns the client's end of a new connection, whose other end
// Accept returns.
func (l *pipeListener) dial() net.Conn {
	client, server := net.Pipe()
	l.conns <- server
	return client
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
