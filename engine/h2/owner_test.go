package h2

import (
	"net"
	"testing"
)

// The ownership checks are on in every test of this package, the
// allocation test included: they must allocate nothing either.
func init() { checkOwners = true }

// TestOwnerChecks: touching the reader's state from another goroutine,
// the state mu guards without mu, or a stream after its last call
// panics while the checks are on.
func TestOwnerChecks(t *testing.T) {
	nc, peer := net.Pipe()
	defer nc.Close()
	defer peer.Close()
	c := NewConn(nc, nil, Options{}, nil)
	st := c.newStreamForTest(1)
	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"reader's state off the reader", func() { c.calm() }},
		{"mu's state without mu", func() { c.writeData(1, true, nil) }},
		{"a wait for window on the reader", func() {
			c.reader.set()
			defer c.reader.clear()
			c.lock()
			defer c.unlock()
			st.pending = make([]byte, c.o.MaxPendingBytes+1)
			c.waitRoom(st)
		}},
		{"a stream after its last call", func() { st.finished = true; st.Abort() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.f()
		})
	}
	c.lock()
	c.writeData(1, true, nil) // with mu: no panic
	c.unlock()
}

// newStreamForTest opens stream id as the reader would.
func (c *Conn) newStreamForTest(id uint32) *Stream {
	c.reader.set()
	defer c.reader.clear()
	c.lock()
	defer c.unlock()
	st := c.newStream(id)
	c.streams[id] = st
	return st
}

func TestGoidAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { goid() }); n != 0 {
		t.Errorf("goid: %v allocations, want 0", n)
	}
}

// SetCheckOwners turns the ownership checks on or off and returns what
// they were: a benchmark measures the code as it runs in production.
func SetCheckOwners(on bool) (was bool) {
	was, checkOwners = checkOwners, on
	return was
}
