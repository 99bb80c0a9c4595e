package daemon

import "time"

// every calls fn every interval, on the caller's goroutine, until stop
// closes: the loop of the daemon's periodic jobs (the config watch, the
// last-answered snapshot, the idle collector).
func every(interval time.Duration, stop <-chan struct{}, fn func()) {
	everyUntil(interval, stop, func() bool { fn(); return false })
}

// everyUntil is every for a job that ends of itself: it stops too once
// fn reports it done (the admin address taken back after an upgrade).
func everyUntil(interval time.Duration, stop <-chan struct{}, fn func() (done bool)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if fn() {
				return
			}
		}
	}
}
