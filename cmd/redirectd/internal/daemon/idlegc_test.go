package daemon

import (
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"testing"
	"time"

	"github.com/VictoriaMetrics/metrics"
)

func TestIdleCollectorDue(t *testing.T) {
	const mib = 1 << 20
	c := &idleCollector{quietAllocs: mib, minGarbage: 4 * mib}
	for _, tc := range []struct {
		name                           string
		allocated, live, objects, free uint64
		want                           bool
	}{
		{"after a burst: garbage and free pages", 0, 45 * mib, 53 * mib, 16 * mib, true},
		{"still busy", 2 * mib, 45 * mib, 53 * mib, 16 * mib, false},
		{"quiet, too little to hand back", 0, 45 * mib, 47 * mib, 6 * mib, false},
		{"1,000 idle h2 connections' handshakes", 0, 35 * mib, 43 * mib, 8 * mib, true},
		{"a small heap: minGarbage decides", 0, 4 * mib, 5 * mib, 2 * mib, false},
		{"a small heap, enough", 0, 4 * mib, 5 * mib, 3 * mib, true},
		{"a large heap: a quarter of it decides", 0, 200 * mib, 220 * mib, 25 * mib, false},
		{"a large heap, enough", 0, 200 * mib, 220 * mib, 30 * mib, true},
		{"objects below live (freed since)", 0, 45 * mib, 40 * mib, 30 * mib, true},
		{"just collected", 0, 45 * mib, 45 * mib, 0, false},
	} {
		if got := c.due(tc.allocated, tc.live, tc.objects, tc.free); got != tc.want {
			t.Errorf("%s: due(%d, %d, %d, %d) = %v, want %v", tc.name, tc.allocated, tc.live, tc.objects, tc.free, got, tc.want)
		}
	}
}

// TestIdleCollectorHandsBack leaves a burst's garbage in the real heap and
// waits for the collector to hand it back to the OS, once: with nothing
// allocated after it, it must not collect again.
func TestIdleCollectorHandsBack(t *testing.T) {
	set := metrics.NewSet()
	c := newIdleCollector(set)
	c.interval = 20 * time.Millisecond
	c.minGarbage = 8 << 20
	// Other tests' goroutines may still be allocating: quietness is
	// TestIdleCollectorDue's; this test is about what the heap says.
	c.quietAllocs = 1 << 62
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // the burst stays garbage
	// held is the memory the runtime holds from the OS.
	held := func() uint64 {
		s := []rtmetrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		rtmetrics.Read(s)
		return s[0].Value.Uint64() - s[1].Value.Uint64()
	}
	debug.FreeOSMemory()

	burst := make([][]byte, 64)
	for i := range burst {
		burst[i] = make([]byte, 1<<20)
		burst[i][0] = 1
	}
	burst = nil
	before := held()

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { c.run(stop); close(done) }()
	defer func() { close(stop); <-done }()
	deadline := time.Now().Add(10 * time.Second)
	for c.collections.Get() == 0 && time.Now().Before(deadline) {
		time.Sleep(c.interval)
	}
	if n := c.collections.Get(); n != 1 {
		t.Fatalf("collections after a 64 MiB burst: %d, want 1", n)
	}
	if after := held(); after+32<<20 > before {
		t.Errorf("the runtime held %d MiB after the 64 MiB burst and %d MiB after the collection: want at least 32 MiB handed back", before>>20, after>>20)
	}
	time.Sleep(10 * c.interval)
	if n := c.collections.Get(); n != 1 {
		t.Errorf("collections with nothing allocated since the first: %d, want still 1", n)
	}
}
