package exchange

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	fw "github.com/redirectd/redirectd/engine/forward"
)

// TestRateDeadline: the deadline of a body past the buffer is
// body_timeout plus a second per body_min_rate bytes after the exchange
// started, and the time a chunk waited for a full body channel (the
// upstream taking nothing) is not counted: while it waits, and once feed
// has passed it on.
func TestRateDeadline(t *testing.T) {
	sec := int64(time.Second)
	clock := &clockConn{}
	g := &Group{Options: fw.Options{BodyTimeout: time.Second, BodyMinRate: 1000}}
	at := func(ns int64) { clock.now = ns }
	f := &Forward{conn: clock, g: g, rated: true, rateStart: 10 * sec, rateSeen: 500, body: make(chan []byte, 1)}
	var got []int64
	f.bodySeen = 500
	got = append(got, f.rateDeadline(10*sec)) // nothing since the start: body_timeout
	f.bodySeen = 2500
	got = append(got, f.rateDeadline(11*sec)) // 2000 bytes: two seconds more
	// A chunk waits from 12 s: the deadline moves with the clock.
	f.pending, f.stallStart = []byte("x"), 12*sec
	got = append(got, f.rateDeadline(12*sec), f.rateDeadline(20*sec))
	// At 20 s the upstream takes it: the 8 s stay out.
	at(20 * sec)
	f.feed(nil)
	if f.pending != nil {
		t.Fatal("the pending chunk was not passed on")
	}
	// (Its bytes were counted in bodySeen when they were read.)
	got = append(got, f.rateDeadline(21*sec))
	want := []int64{11 * sec, 13 * sec, 13 * sec, 21 * sec, 21 * sec}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deadlines (-want +got):\n%s", diff)
	}
}

// clockConn is a Conn with only a clock, set by the test: the other
// methods are not called.
type clockConn struct {
	Conn
	now int64
}

func (c *clockConn) Now() int64 { return c.now }
