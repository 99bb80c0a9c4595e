package redisstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redirectd/redirectd/internal/testutil"
)

// crash makes r behave as a holder that died: its refreshers stop and
// its locks stay in Redis until they expire.
func (r *Redis) crash() {
	r.mu.Lock()
	held := r.locks
	r.locks = map[string]*heldLock{}
	r.mu.Unlock()
	for _, h := range held {
		close(h.stop)
		<-h.done
	}
}

// TestLockExclusion has nodes (each its own client, as separate
// processes are) and goroutines sharing a node take one lock in turn, and
// checks that no two are ever inside at once and that every turn ran.
func TestLockExclusion(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	nodes := []*Redis{newRedis(t, srv, Config{}), newRedis(t, srv, Config{}), newRedis(t, srv, Config{})}
	const workers, turns = 9, 5
	var inside, most, done atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := nodes[w%len(nodes)]
			for range turns {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				if err := r.Lock(ctx, "issue_cert_example.com"); err != nil {
					t.Error(err)
					cancel()
					return
				}
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(2 * time.Millisecond) // long enough for another to get in, were the lock broken
				inside.Add(-1)
				done.Add(1)
				if err := r.Unlock(ctx, "issue_cert_example.com"); err != nil {
					t.Error(err)
				}
				cancel()
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 || done.Load() != workers*turns {
		t.Errorf("at most %d inside at once (want 1), %d turns done (want %d)", most.Load(), done.Load(), workers*turns)
	}
}

// TestLockExpiry checks that a held lock outlives its time to live while
// its holder refreshes it, and that the lock of a holder that crashed is
// taken once it expires, and not before.
func TestLockExpiry(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	ctx := context.Background()
	const ttl = 300 * time.Millisecond
	holder := newRedis(t, srv, Config{LockTTL: ttl})
	other := newRedis(t, srv, Config{})
	if ok, err := holder.TryLock(ctx, "x"); !ok || err != nil {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	time.Sleep(3 * ttl) // the lock would be gone without its refresher
	if ok, err := other.TryLock(ctx, "x"); ok || err != nil {
		t.Fatalf("a refreshed lock was taken after 3 TTLs: TryLock = %v, %v", ok, err)
	}
	holder.crash()
	crashed := time.Now()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := other.Lock(wctx, "x"); err != nil {
		t.Fatalf("the lock of a crashed holder was not taken: %v", err)
	}
	// It expires within a TTL of the last refresh, itself within a
	// third of a TTL before the crash.
	if waited := time.Since(crashed); waited > 2*ttl+time.Second {
		t.Errorf("took the crashed holder's lock after %v, want about %v", waited, ttl)
	}
	if err := other.Unlock(ctx, "x"); err != nil {
		t.Error(err)
	}
}

// TestUnlockNotHeld checks that Unlock refuses a lock this process does
// not hold, leaving its holder's lock in place, and reports one lost to
// expiry without deleting its new holder's.
func TestUnlockNotHeld(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	ctx := context.Background()
	a := newRedis(t, srv, Config{LockTTL: 200 * time.Millisecond})
	b := newRedis(t, srv, Config{})
	if err := b.Unlock(ctx, "never"); !errors.Is(err, ErrNotLocked) {
		t.Errorf("Unlock of a lock never taken = %v, want ErrNotLocked", err)
	}
	if err := a.Lock(ctx, "y"); err != nil {
		t.Fatal(err)
	}
	if err := b.Unlock(ctx, "y"); !errors.Is(err, ErrNotLocked) {
		t.Errorf("Unlock of another's lock = %v, want ErrNotLocked", err)
	}
	if ok, _ := b.TryLock(ctx, "y"); ok {
		t.Fatal("another's Unlock released the lock")
	}
	// a's lock expires while a stops refreshing (a network split), b
	// takes it; a's Unlock must leave b's lock alone.
	a.mu.Lock()
	h := a.locks["y"]
	a.mu.Unlock()
	close(h.stop)
	<-h.done
	h.stop = make(chan struct{}) // for Unlock to close again
	h.done = make(chan struct{})
	close(h.done)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := b.Lock(wctx, "y"); err != nil {
		t.Fatal(err)
	}
	if err := a.Unlock(ctx, "y"); !errors.Is(err, ErrLockLost) {
		t.Errorf("Unlock of an expired lock = %v, want ErrLockLost", err)
	}
	if ok, _ := a.TryLock(ctx, "y"); ok {
		t.Error("the old holder's Unlock released the new holder's lock")
	}
	if err := b.Unlock(ctx, "y"); err != nil {
		t.Error(err)
	}
}

// TestLockWaitsForContext checks that Lock on a held lock returns when
// its context ends, with the context's error.
func TestLockWaitsForContext(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	a, b := newRedis(t, srv, Config{}), newRedis(t, srv, Config{})
	if err := a.Lock(context.Background(), "z"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := b.Lock(ctx, "z"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lock on a held lock = %v, want context.DeadlineExceeded", err)
	}
}
