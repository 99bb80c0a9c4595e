package redisstore

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redirectd/redirectd/internal/safego"
)

// heldLock is a lock this process holds: its token, and the refresher
// that keeps it from expiring.
type heldLock struct {
	key, token string
	stop       chan struct{}
	done       chan struct{}
}

// refreshScript extends KEYS[1]'s time to live to ARGV[2] ms when it
// still holds this holder's token ARGV[1]; 0 when it does not (it
// expired, and another node may hold it now).
var refreshScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// unlockScript deletes KEYS[1] only when it holds this holder's token:
// a lock that expired and was taken by another node stays theirs.
var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

func (r *Redis) lockKey(name string) string { return r.prefix + "lock/" + name }

// Lock takes the lock name, waiting while another holder (another node,
// or another goroutine of this one) has it, until ctx is done. A Redis
// error ends the wait with that error: an issuance that cannot be
// coordinated waits, rather than risking a second order of the same
// certificate.
func (r *Redis) Lock(ctx context.Context, name string) (err error) {
	defer recovered("lock", &err)
	for {
		ok, err := r.TryLock(ctx, name)
		if err != nil || ok {
			return err
		}
		// Jitter, so that waiters started together do not poll together.
		wait := r.poll/2 + rand.N(r.poll/2+1)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting for lock %q: %w", name, ctx.Err())
		case <-t.C:
		}
	}
}

// TryLock takes the lock name if no one holds it, and reports whether it
// did. Held, the lock's time to live is refreshed every third of it until
// Unlock or Close.
func (r *Redis) TryLock(ctx context.Context, name string) (_ bool, err error) {
	defer recovered("lock", &err)
	token := newToken()
	key := r.lockKey(name)
	ok, err := r.c.SetNX(ctx, key, token, r.ttl).Result()
	if err != nil {
		return false, fmt.Errorf("cannot take lock %q in redis: %w", name, err)
	}
	if !ok {
		return false, nil
	}
	h := &heldLock{key: key, token: token, stop: make(chan struct{}), done: make(chan struct{})}
	r.mu.Lock()
	r.locks[name] = h
	r.mu.Unlock()
	go r.refresh(name, h)
	return true, nil
}

// refresh keeps h alive until it is stopped. A lost lock (expired while
// Redis was unreachable, and perhaps taken by another node) is logged
// and no longer refreshed: refreshing it would extend someone else's.
func (r *Redis) refresh(name string, h *heldLock) {
	defer safego.Recover("redis lock refresh")
	defer close(h.done)
	t := time.NewTicker(r.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		n, err := refreshScript.Run(ctx, r.c, []string{h.key}, h.token, itoa(r.ttl)).Int()
		cancel()
		switch {
		case err != nil:
			r.log.Warn("redis storage: cannot refresh a lock; it expires unless a refresh succeeds", "lock", name, "ttl", r.ttl, "err", err)
		case n == 0:
			r.log.Error("redis storage: a lock expired while held; the work under it may run on another node too", "lock", name)
			return
		}
	}
}

// Unlock releases the lock name taken by Lock or TryLock in this
// process. It is ErrNotLocked for a lock this process does not hold, and
// ErrLockLost for one that expired meanwhile (another holder's is left
// alone).
//
// certmagic's Unlock names the lock, not the holder: when a lock
// expired under one goroutine (Redis unreachable past LockTTL) and
// another goroutine of this process then took it, the first one's
// Unlock releases the second's. It takes an outage longer than the TTL
// and two jobs for one name in one process; the cost is the one
// certmagic accepts of its own folder locks, an order that may run
// twice.
func (r *Redis) Unlock(ctx context.Context, name string) (err error) {
	defer recovered("unlock", &err)
	r.mu.Lock()
	h := r.locks[name]
	delete(r.locks, name)
	r.mu.Unlock()
	if h == nil {
		return fmt.Errorf("unlock %q: %w", name, ErrNotLocked)
	}
	close(h.stop)
	<-h.done
	n, err := unlockScript.Run(ctx, r.c, []string{h.key}, h.token).Int()
	if err != nil {
		return fmt.Errorf("cannot release lock %q in redis (it expires within %v): %w", name, r.ttl, err)
	}
	if n == 0 {
		return fmt.Errorf("unlock %q: %w", name, ErrLockLost)
	}
	return nil
}

// newToken is a random lock token: 128 bits, so that no two holders
// share one.
func newToken() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}
