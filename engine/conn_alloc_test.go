//go:build !race

package engine

import (
	"testing"

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
