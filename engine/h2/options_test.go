package h2

import (
	"testing"
	"time"
	"unsafe"

	"golang.org/x/time/rate"
)

// TestLimiterAllocs: the rate bounds' buckets (golang.org/x/time/rate's)
// take a token per control frame or reset without allocating.
func TestLimiterAllocs(t *testing.T) {
	var l rate.Limiter
	fill(&l, DefaultControlPerSecond, 2*DefaultControlPerSecond)
	now := time.Unix(1e9, 0)
	if n := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Millisecond)
		l.AllowN(now, 1)
	}); n != 0 {
		t.Errorf("%v allocations per token, want 0", n)
	}
}

// TestLimiterFullAtFirst: a bucket readied in place (fill) answers each
// frame as rate.NewLimiter's does: full at first, so a burst passes and
// the frame after it does not, then refilled at the rate.
func TestLimiterFullAtFirst(t *testing.T) {
	const perSecond, burst = 10, 20
	var got rate.Limiter
	fill(&got, perSecond, burst)
	want := rate.NewLimiter(perSecond, burst)
	now := time.Unix(1e9, 0)
	steps := []time.Duration{0, 0, 0, 50 * time.Millisecond, 100 * time.Millisecond, 0, 0, time.Second, 0, time.Hour}
	for i := range 200 {
		now = now.Add(steps[i%len(steps)])
		if g, w := got.AllowN(now, 1), want.AllowN(now, 1); g != w {
			t.Fatalf("frame %d: allowed %v, rate.NewLimiter's %v", i, g, w)
		}
	}
	var fresh rate.Limiter
	fill(&fresh, perSecond, burst)
	for i := range burst {
		if !fresh.AllowN(now, 1) {
			t.Fatalf("frame %d of the first burst refused", i)
		}
	}
	if fresh.AllowN(now, 1) {
		t.Error("the frame after the first burst allowed")
	}
}

// TestConnSize: a Conn, its rate buckets in it, fits the runtime's
// 1024-byte size class; an idle connection keeps it, and the next class
// is 1152 bytes. A field that does not fit should move what is seldom
// used out of the Conn, or be weighed against 128 bytes an idle
// connection.
func TestConnSize(t *testing.T) {
	if n := unsafe.Sizeof(Conn{}); n > 1024 {
		t.Errorf("Conn is %d bytes, over the 1024-byte size class", n)
	}
}

// TestWithDefaults: a zero Options gets every default, the derived ones
// from the others; a field set is kept.
func TestWithDefaults(t *testing.T) {
	o := Options{IdleTimeout: time.Minute, PrefaceTimeout: 3 * time.Second, ResetsPerSecond: 7}.WithDefaults()
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"SendTimeout", o.SendTimeout, time.Minute},
		{"BodyTimeout", o.BodyTimeout, 3 * time.Second},
		{"ResetBurst", o.ResetBurst, 14},
		{"MaxHeaderBlockBytes", o.MaxHeaderBlockBytes, 2 * DefaultMaxHeaderListSize},
		{"QuietAfter", o.QuietAfter, DefaultQuietAfter},
		{"MaxPendingBytes", o.MaxPendingBytes, DefaultMaxPendingBytes},
		{"LingerTimeout", o.LingerTimeout, DefaultLingerTimeout},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
