package engine

import (
	"time"

	"github.com/redirectd/redirectd/internal/safego"
)

// job is what a worker runs: a forward's exchange (forward.run) or an
// ACME challenge (challenge.run).
type job interface{ run() }

// workers runs forwards and challenges on long-lived goroutines. A
// goroutine started per forward grew its stack through fasthttp's call
// chain on every request (morestack and copystack were 3 % of the
// server's CPU in the proxy scenario, newproc another 0.9 %); a worker
// keeps its grown stack from one forward to the next.
//
// There is no fixed pool: a forward can wait on a slow upstream for
// minutes, and a fixed set of workers would queue the others behind it.
// A forward goes to an idle worker when one is waiting, else to a new
// one; a worker with nothing to do for workerIdle exits.
type workers struct {
	// idle is unbuffered: a send succeeds only when a worker waits.
	idle chan job
}

func newWorkers() *workers { return &workers{idle: make(chan job)} }

// run hands j to an idle worker or starts one.
func (w *workers) run(j job) {
	select {
	case w.idle <- j:
	default:
		go w.work(j)
	}
}

func (w *workers) work(j job) {
	defer safego.Recover("forward worker")
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		j.run()
		t.Reset(workerIdle)
		select {
		case j = <-w.idle:
		case <-t.C:
			return
		}
	}
}
