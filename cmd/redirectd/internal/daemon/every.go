package daemon

import "time"

// every calls fn every interval, on the caller's goroutine, until stop
// closes: the loop of the daemon's periodic jobs (the config watch, the
// last-answered snapshot, the idle collector).
func every(interval time.Duration, stop <-chan struct{}, fn func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			fn()
		}
	}
}
