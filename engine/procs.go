package engine

import (
	"runtime"
	"sync"
	"time"
)

// startProcs is GOMAXPROCS as the process started, the default number of
// event loops: a server raises GOMAXPROCS while it runs (spareProc), and
// one made after that still gets one loop per CPU.
var startProcs = runtime.GOMAXPROCS(0)

// The spare P is given while the loops read fewer than spareBelow times a
// second each, and taken back above spareAbove; the rate is measured over
// spareEvery. Measured on one CPU (benchmarks/README.md, "An idle-ish
// event loop"): at 5,000 requests a second the spare P halved the CPU per
// request, at 20,000 it cost a third more; the gap between the two
// thresholds keeps a rate near them from switching at every decision.
// A quarter of a second is enough reads to tell the rates apart, and
// short enough that a burst pays little for the spare P before it goes.
const (
	spareBelow = 8000
	spareAbove = 12000
	spareEvery = 250 * time.Millisecond
)

// spareProc keeps GOMAXPROCS one above the number of event loops while
// the loops are idle-ish. A loop with nothing to read blocks in
// epoll_wait, a system call during which it keeps its P. With no P idle,
// the runtime's sysmon takes that P back after 20 us and wakes a thread
// to run it, the loop wakes to find its P gone and must wait for one, and
// sysmon, having taken a P, polls every 20 us instead of backing off to
// 10 ms: at a moderate rate, several context switches for every request.
// With a P idle, sysmon leaves a waiting loop's P alone. But gnet yields
// (runtime.Gosched) each time a poll finds nothing, and with a P idle the
// runtime wakes a thread to take the yielding loop's goroutine: two
// switches for every wake-up, which at a high rate, where sysmon rarely
// finds a loop waiting long, cost more than they save. Hence a spare P
// only below a rate. It lets one more thread run Go code at once (the
// ticker, a forward worker, the GC beside busy loops), the kernel sharing
// the CPUs. Only the ticker and Run call it, hence the lock.
type spareProc struct {
	mu    sync.Mutex
	loops int    // event loops
	base  int    // GOMAXPROCS before; 0: above the loops, left alone
	on    bool   // GOMAXPROCS is loops+1
	reads uint32 // the loops' reads at the last decision
	at    time.Time
}

// start gives the spare P if GOMAXPROCS has none beyond the loops.
func (p *spareProc) start(loops int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := runtime.GOMAXPROCS(0); n <= loops {
		p.loops, p.base = loops, n
		p.set(true)
	}
}

// stop puts GOMAXPROCS back as start found it.
func (p *spareProc) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.base != 0 && p.on {
		p.set(false)
	}
	p.base = 0
}

// tune decides from reads, the loops' reads so far (a wrapping count),
// once every spareEvery.
func (p *spareProc) tune(now time.Time, reads uint32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.base == 0 {
		return
	}
	if p.at.IsZero() {
		p.at, p.reads = now, reads
		return
	}
	d := now.Sub(p.at)
	if d < spareEvery {
		return
	}
	rate := float64(reads-p.reads) / d.Seconds() / float64(p.loops)
	p.at, p.reads = now, reads
	switch {
	case p.on && rate > spareAbove:
		p.set(false)
	case !p.on && rate < spareBelow:
		p.set(true)
	}
}

func (p *spareProc) set(on bool) {
	p.on = on
	if on {
		runtime.GOMAXPROCS(p.loops + 1)
	} else {
		runtime.GOMAXPROCS(p.base)
	}
}
