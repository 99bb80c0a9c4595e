package engine

import (
	"net"
	"strings"
	"testing"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/benchmarks/rules"
)

// benchConn is the part of a gnet.Conn that the handler's OnOpen,
// OnTraffic and OnClose use, without a socket: it holds one read's bytes
// and takes the write. The embedded interface is nil: a method the
// handler should not call panics.
type benchConn struct {
	gnet.Conn
	in, out       []byte
	ctx           any
	local, remote net.Addr
}

func (c *benchConn) Peek(n int) ([]byte, error) {
	if n < 0 || n > len(c.in) {
		return c.in, nil
	}
	return c.in[:n], nil
}

func (c *benchConn) Discard(n int) (int, error) {
	if n <= 0 || n > len(c.in) {
		n = len(c.in)
	}
	c.in = c.in[n:]
	return n, nil
}

func (c *benchConn) Write(b []byte) (int, error) {
	c.out = append(c.out[:0], b...)
	return len(b), nil
}

func (c *benchConn) Context() any              { return c.ctx }
func (c *benchConn) SetContext(ctx any)        { c.ctx = ctx }
func (c *benchConn) LocalAddr() net.Addr       { return c.local }
func (c *benchConn) RemoteAddr() net.Addr      { return c.remote }
func (c *benchConn) EventLoop() gnet.EventLoop { return nil }
func (c *benchConn) OutboundBuffered() int     { return 0 }
func (c *benchConn) InboundBuffered() int      { return 0 }

func newBenchConn() *benchConn {
	return &benchConn{
		local:  &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1).To4(), Port: 8080},
		remote: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1).To4(), Port: 40000},
	}
}

// newBenchHandler is a handler of a server over the reference rules,
// not started: the benchmarks call its events themselves.
func newBenchHandler(tb testing.TB) *handler {
	tb.Helper()
	f := newServeFixture(tb)
	return &handler{srv: f.srv}
}

// BenchmarkTraffic measures what a read of 16 pipelined exact hits costs
// the event loop, from OnTraffic's entry to its write, without the
// socket: serve plus the per-read work around it (clock, counters,
// gnet's buffer). ns/req is the figure the pipelined scenario's CPU per
// request holds, less the system calls.
func BenchmarkTraffic(b *testing.B) {
	h := newBenchHandler(b)
	c := newBenchConn()
	if _, a := h.OnOpen(c); a != gnet.None {
		b.Fatal("OnOpen refused the connection")
	}
	batch := []byte(strings.Repeat("GET "+rules.ExactHit+" HTTP/1.1\r\nHost: www.example.com\r\n\r\n", 16))
	b.ReportAllocs()
	for b.Loop() {
		c.in = batch
		if h.OnTraffic(c) != gnet.None || len(c.in) != 0 {
			b.Fatal("the batch was not answered whole")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/16, "ns/req")
}

// BenchmarkConnChurn measures a connection that sends one request with
// Connection: close, as the exact-churn scenario does, from OnOpen to
// OnClose, without the socket: what redirectd adds per connection to
// gnet's accept and close and the kernel's.
func BenchmarkConnChurn(b *testing.B) {
	h := newBenchHandler(b)
	req := []byte("GET " + rules.ExactHit + " HTTP/1.1\r\nHost: www.example.com\r\nConnection: close\r\n\r\n")
	c := newBenchConn()
	b.ReportAllocs()
	for b.Loop() {
		c.ctx = nil
		if _, a := h.OnOpen(c); a != gnet.None {
			b.Fatal("OnOpen refused the connection")
		}
		c.in = req
		if h.OnTraffic(c) != gnet.Close {
			b.Fatal("the connection was not closed after its answer")
		}
		h.OnClose(c, nil)
	}
}

// TestConnReused checks what a loop keeps of a closed conn for the next
// connection: nothing of its state, and nothing at all of one that a
// goroutine off the loop may still hold.
func TestConnReused(t *testing.T) {
	h := newBenchHandler(t)
	c := newBenchConn()
	h.OnOpen(c)
	first := c.ctx.(*conn)
	c.in = []byte("GET " + rules.ExactHit + " HTTP/1.1\r\nHost: www.example.com\r\n\r\nGET /partial")
	if h.OnTraffic(c) != gnet.None {
		t.Fatal("a keep-alive request closed the connection")
	}
	if first.served != 1 || first.headStart == 0 || len(first.partial) == 0 {
		t.Fatalf("after a request and a partial head: served %d, headStart %d, %d bytes held", first.served, first.headStart, len(first.partial))
	}
	h.OnClose(c, nil)

	c.ctx = nil
	h.OnOpen(c)
	second := c.ctx.(*conn)
	if second != first {
		t.Fatal("the closed conn was not reused")
	}
	if second.served != 0 || second.headStart != 0 || len(second.partial) != 0 || second.loop == nil || second.c != c {
		t.Errorf("the reused conn kept state: served %d, headStart %d, %d bytes held", second.served, second.headStart, len(second.partial))
	}
	second.shared = true // as a forward would have made it
	h.OnClose(c, nil)
	c.ctx = nil
	h.OnOpen(c)
	if c.ctx.(*conn) == second {
		t.Error("a conn a forward may hold was reused")
	}
}
