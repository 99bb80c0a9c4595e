package h2

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

// This file holds the ownership checks: who may touch what is asserted,
// not only written in comments, as x/net's serveG.check() does. Two
// owners matter on a connection: the reader (the goroutine running
// Serve, the only one that touches the fields marked "the reader's") and
// the holder of mu (every field marked "mu"). A write on a stream after
// its handler's last call is a defect too. A failed check panics: it is
// a defect of this package's or of its caller's, never of the client's
// input.
//
// The checks cost one load and a branch when off. They are on in race
// builds, in this package's tests (owner_test.go), and where the
// environment has REDIRECTD_H2_CHECK=1.
var checkOwners = raceEnabled || os.Getenv("REDIRECTD_H2_CHECK") == "1"

// owner records which goroutine holds a role while checkOwners is on.
type owner struct{ g atomic.Uint64 }

func (o *owner) set() {
	if checkOwners {
		o.g.Store(goid())
	}
}

func (o *owner) clear() {
	if checkOwners {
		o.g.Store(0)
	}
}

// check panics unless the calling goroutine holds the role.
func (o *owner) check(role string) {
	if checkOwners && o.g.Load() != goid() {
		panic("h2: " + role + " touched by a goroutine that does not own it")
	}
}

// goid is the calling goroutine's id, read from the first line of its
// stack ("goroutine 18 [running]:"), as x/net's curGoroutineID does; into
// a pooled buffer (runtime.Stack's escapes), so it allocates nothing.
func goid() uint64 {
	bp := stackBufs.Get().(*[64]byte)
	defer stackBufs.Put(bp)
	b := bp[:runtime.Stack(bp[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

var stackBufs = sync.Pool{New: func() any { return new([64]byte) }}

// lock takes mu and records its holder; unlock lets it go; wait waits on
// room, which lets mu go meanwhile.
func (c *Conn) lock() {
	c.mu.Lock()
	c.holder.set()
}

func (c *Conn) unlock() {
	c.holder.clear()
	c.mu.Unlock()
}

func (c *Conn) wait() {
	c.holder.clear()
	c.room.Wait()
	c.holder.set()
}

// locked asserts that the caller holds mu.
func (c *Conn) locked() { c.holder.check("state guarded by Conn.mu") }

// reading asserts that the caller is the connection's reader.
func (c *Conn) reading() { c.reader.check("the reader's state") }

// notReading asserts that the caller is not the connection's reader,
// before a wait only the reader's next frame can end (window, body): on
// the reader it would never end (x/net's checkNotOn).
func (c *Conn) notReading() {
	if checkOwners && c.reader.g.Load() == goid() {
		panic("h2: the reader would wait for its own next frame")
	}
}

// live asserts that st's handler has not made its last call.
func (st *Stream) live() {
	if checkOwners && st.finished {
		panic("h2: a stream written to after its handler's last call")
	}
}
