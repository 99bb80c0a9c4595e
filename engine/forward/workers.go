package forward

import (
	"time"

	"github.com/redirectd/redirectd/internal/safego"
)

// Job is what a worker runs: a forward's exchange or an ACME challenge.
type Job interface{ Run() }

// Workers runs forwards and challenges on long-lived goroutines. A
// goroutine started per forward grew its stack through fasthttp's call
// chain on every request (morestack and copystack were 3 % of the
// server's CPU in the proxy scenario, newproc another 0.9 %); a worker
// keeps its grown stack from one forward to the next.
//
// There is no fixed pool: a forward can wait on a slow upstream for
// minutes, and a fixed set of workers would queue the others behind it.
// A forward goes to an idle worker when one is waiting, else to a new
// one; a worker with nothing to do for workerIdle exits.
type Workers struct {
	// idle is unbuffered: a send succeeds only when a worker waits.
	idle chan Job
}

// NewWorkers returns a set of workers, none started yet.
func NewWorkers() *Workers { return &Workers{idle: make(chan Job)} }

// Run hands j to an idle worker or starts one.
func (w *Workers) Run(j Job) {
	select {
	case w.idle <- j:
	default:
		go w.work(j)
	}
}

func (w *Workers) work(j Job) {
	defer safego.Recover("forward worker")
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		j.Run()
		t.Reset(workerIdle)
		select {
		case j = <-w.idle:
		case <-t.C:
			return
		}
	}
}
