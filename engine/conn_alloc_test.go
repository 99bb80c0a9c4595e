//go:build !race

package engine

import (
	"testing"
	"unsafe"

	"github.com/panjf2000/gnet/v2"

	"github.com/redirectd/redirectd/benchmarks/rules"
)

// TestConnChurnAllocs checks that a connection answered once and closed,
// as under connection churn, allocates nothing in redirectd's own
// OnOpen, OnTraffic and OnClose once the loop is warm: the conn is one
// the loop kept from an earlier close.
func TestConnChurnAllocs(t *testing.T) {
	h := newBenchHandler(t)
	req := []byte("GET " + rules.ExactHit + " HTTP/1.1\r\nHost: www.example.com\r\nConnection: close\r\n\r\n")
	c := newBenchConn()
	allocs := testing.AllocsPerRun(100, func() {
		c.ctx = nil
		if _, a := h.OnOpen(c); a != gnet.None {
			t.Fatal("OnOpen refused the connection")
		}
		c.in = req
		if h.OnTraffic(c) != gnet.Close {
			t.Fatal("the connection was not closed after its answer")
		}
		h.OnClose(c, nil)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per connection, want 0", allocs)
	}
}

// TestConnSize: a conn fits the runtime's 352-byte size class, which
// every connection, plain, TLS or HTTP/2, keeps while open; the next
// class is 384 bytes. The bools sit together for that: spread between
// the wider fields, each took 8 bytes and the conn 360.
func TestConnSize(t *testing.T) {
	if n := unsafe.Sizeof(conn{}); n > 352 {
		t.Errorf("conn is %d bytes, over the 352-byte size class", n)
	}
}

// TestH2ConnOneObject: an HTTP/2 connection's engine side holds package
// h2bridge's state (h2conn.bridge), and the two fit the runtime's
// 112-byte size class, which a handshake seldom uses: split, they were a
// 24-byte and a 96-byte object, in classes a handshake churns with
// dozens of short-lived objects, and 2,000 idle connections kept about
// 1 MB more heap in use in the spans they held. The 128-byte class is
// churned too.
func TestH2ConnOneObject(t *testing.T) {
	if n := unsafe.Sizeof(h2conn{}); n <= 96 || n > 112 {
		t.Errorf("h2conn is %d bytes, want the bridge in it and at most 112", n)
	}
}
