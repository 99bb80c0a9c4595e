package console

import (
	"sync"
	"time"
)

// Failed sign-ins are limited for the whole console, not per client
// (behind a proxy every client has one address): a burst of 20, then
// 2 a second. A token guessed online at that rate gets nowhere, and a
// person who mistyped waits at most a second.
const (
	failBurst = 20
	failRate  = 2 // per second
)

// failLimiter is a token bucket of failed sign-ins.
type failLimiter struct {
	mu     sync.Mutex
	tokens float64
	at     time.Time
}

// allow reports whether a sign-in may be tried at now: false while the
// failures have used up the bucket.
func (l *failLimiter) allow(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(now)
	return l.tokens >= 1
}

// failed takes one token for a failed sign-in.
func (l *failLimiter) failed(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refill(now)
	l.tokens = max(0, l.tokens-1)
}

func (l *failLimiter) refill(now time.Time) {
	if l.at.IsZero() {
		l.tokens, l.at = failBurst, now
		return
	}
	l.tokens = min(failBurst, l.tokens+now.Sub(l.at).Seconds()*failRate)
	l.at = now
}
