package main

import (
	"fmt"
	"sync"
	"time"
)

// idleConn is one connection of an idle-memory measurement: use does one
// more request on it, close closes it.
type idleConn struct {
	use   func() error
	close func() error
}

// idle measures the memory an idle keep-alive connection holds in the
// server: the server's memory with n connections open, each opened by
// open (a full handshake and one request, done by deadline), less its
// memory before they opened, over n. Every connection is then used once
// more, which shows the server kept them all open through the
// measurement. name labels the log lines (tls-idle, h2-idle).
func (h *harness) idle(p *Proc, name string, n int, open func(deadline time.Time) (idleConn, error)) *IdleResult {
	r := &IdleResult{Conns: n}
	time.Sleep(h.s.Settle)
	r.Before = p.Mem()
	conns := make([]idleConn, n)
	defer func() {
		for _, c := range conns {
			if c.close != nil {
				c.close()
			}
		}
	}()
	deadline := time.Now().Add(2 * time.Minute)
	// A few dialers at a time: the server's accept queue and the
	// handshakes' CPU stay bounded, as a crowd of clients arriving would.
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c, err := open(deadline)
				if err != nil {
					errs <- fmt.Errorf("connection %d: %w", i, err)
					continue
				}
				conns[i] = c
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		r.Failed = err.Error()
		logf("  %s FAILED: %v", name, err)
		return r
	}
	time.Sleep(2 * h.s.Settle)
	r.After = p.Mem()
	for i, c := range conns {
		if err := c.use(); err != nil {
			r.Failed = fmt.Sprintf("connection %d of %d was not kept open through the measurement: %v", i, n, err)
			logf("  %s FAILED: %s", name, r.Failed)
			return r
		}
	}
	r.PSSPerConnKiB = (r.After.PSS - r.Before.PSS) * 1024 / float64(n)
	r.RSSPerConnKiB = (r.After.RSS - r.Before.RSS) * 1024 / float64(n)
	logf("  %-15s %d connections: PSS %.1f -> %.1f MiB, %.1f KiB per connection (RSS %.1f KiB)", name, n, r.Before.PSS, r.After.PSS, r.PSSPerConnKiB, r.RSSPerConnKiB)
	return r
}
