package h2

import (
	"testing"
	"time"
)

// TestLimiterAllocs: the rate bounds' buckets (golang.org/x/time/rate's)
// take a token per control frame or reset without allocating.
func TestLimiterAllocs(t *testing.T) {
	l := limiter(DefaultControlPerSecond, 2*DefaultControlPerSecond)
	now := time.Unix(1e9, 0)
	if n := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Millisecond)
		l.AllowN(now, 1)
	}); n != 0 {
		t.Errorf("%v allocations per token, want 0", n)
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
