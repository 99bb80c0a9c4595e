package redisstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/metrics"
	"github.com/caddyserver/certmagic"
	"github.com/redis/go-redis/v9"

	"github.com/redirectd/redirectd/internal/safego"
)

// probeEvery is how often Layered pings Redis (watch).
var probeEvery = 2 * time.Second

// Layered is Redis with a local folder under it; see the package doc.
// Its methods are safe for concurrent use.
type Layered struct {
	r     *Redis
	local *certmagic.FileStorage
	log   *slog.Logger
	m     *storageMetrics

	// down is set while Redis is taken for unreachable: reads go to the
	// local copy without waiting on Redis, and watch looks for its
	// return.
	down   atomic.Bool
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewLayered makes the storage c describes over the local folder dir
// (made when missing, as FileStorage does). Its metrics are registered
// in set (GetOrCreate: a reload that builds a new Layered reuses them);
// log may be nil. It does not wait for Redis: a ping in the background,
// every 2 s, sets redirectd_tls_storage_up.
func NewLayered(c Config, dir string, set *metrics.Set, log *slog.Logger) (*Layered, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r, err := NewRedis(c, log)
	if err != nil {
		return nil, err
	}
	l := &Layered{r: r, local: &certmagic.FileStorage{Path: dir}, log: log, m: newStorageMetrics(set)}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	// Until the first answer Redis is taken for up, so that reads go to
	// it (a fresh node's local copy is empty: read there, a certificate
	// the fleet holds would look missing and be ordered again), and the
	// gauge says 0.
	l.m.up.Set(0)
	l.wg.Add(1)
	go l.watch()
	return l, nil
}

// Redis returns the Redis storage under l (for tests and the ping of
// `redirectd check`).
func (l *Layered) Redis() *Redis { return l.r }

// String names the storage in certmagic's logs.
func (l *Layered) String() string { return l.r.String() + " over " + l.local.Path }

// Up reports whether the last use of Redis succeeded.
func (l *Layered) Up() bool { return !l.down.Load() }

// outage reports whether err, from op on Redis, is a failure rather than
// an answer (a missing key is an answer), and counts it. A failure while
// the caller's ctx lives marks Redis down, with a log line; one because
// the caller gave up does not, but its read still falls back.
func (l *Layered) outage(ctx context.Context, op string, err error) bool {
	if err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, redis.Nil) {
		l.markUp()
		return false
	}
	if errors.Is(err, ErrNotLocked) || errors.Is(err, ErrLockLost) {
		return false // answers too
	}
	l.m.errors(op).Inc()
	if ctx.Err() == nil && l.down.CompareAndSwap(false, true) {
		l.m.up.Set(0)
		l.log.Error("tls storage: redis is unreachable; certificates are served from the local copy, and no certificate is obtained or renewed until it is back",
			"redis", l.r.String(), "local", l.local.Path, "op", op, "err", err)
	}
	return true
}

// downErr is err from a write or lock that failed, wrapping ErrDown when
// Redis is taken for unreachable (not when the caller's ctx ended).
func (l *Layered) downErr(err error) error {
	if l.down.Load() {
		return fmt.Errorf("%w: %w", ErrDown, err)
	}
	return err
}

func (l *Layered) markUp() {
	l.m.up.Set(1)
	if l.down.CompareAndSwap(true, false) {
		l.log.Info("tls storage: redis is reachable", "redis", l.r.String())
	}
}

// watch pings Redis at once and then every probeEvery until l closes,
// so that the gauge and the log follow Redis while certmagic leaves the
// storage alone (most of the time: it looks every 10 minutes), and see
// it back after an outage. A PING every 2 s is nothing to Redis, even
// from a large fleet.
func (l *Layered) watch() {
	defer safego.Recover("redis watch")
	defer l.wg.Done()
	t := time.NewTicker(probeEvery)
	defer t.Stop()
	for {
		if err := l.r.Ping(l.ctx); l.ctx.Err() == nil { // bounded by the client's timeouts
			l.outage(l.ctx, "ping", err)
		}
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
	}
}

// copied reports whether key is kept in the local copy: everything but
// challenge data, which lives for one order and is useless to a node
// cut off from the CA's order anyway.
func copied(key string) bool { return !strings.Contains(key, "/challenge_tokens/") }

// keep writes key's value into the local copy when it differs; a local
// failure is logged, not returned: Redis has the value.
func (l *Layered) keep(ctx context.Context, key string, v []byte) {
	if !copied(key) {
		return
	}
	if old, err := l.local.Load(ctx, key); err == nil && bytes.Equal(old, v) {
		return
	}
	if err := l.local.Store(ctx, key, v); err != nil {
		l.m.errors("local_copy").Inc()
		l.log.Warn("tls storage: cannot keep a local copy; while redis is unreachable this node cannot read it", "key", key, "err", err)
	}
}

// Store writes key to Redis, then to the local copy. While Redis is
// unreachable it fails (ErrDown), and nothing is written locally: a value
// the fleet does not share would be a certificate ordered twice.
func (l *Layered) Store(ctx context.Context, key string, value []byte) error {
	err := l.r.Store(ctx, key, value)
	if l.outage(ctx, "store", err) {
		return l.downErr(err)
	}
	if err != nil {
		return err
	}
	l.keep(ctx, key, value)
	return nil
}

// Load reads key from Redis and refreshes the local copy with it; from
// the local copy while Redis is unreachable. A certificate or account
// file Redis does not have but the copy holds is written back (restore):
// a Redis restarted empty, or from an old snapshot, gets back what the
// fleet holds instead of the fleet ordering it all again. Any other key
// Redis does not have is missing, whatever the copy holds.
func (l *Layered) Load(ctx context.Context, key string) ([]byte, error) {
	if !l.down.Load() {
		v, err := l.r.Load(ctx, key)
		if !l.outage(ctx, "load", err) {
			switch {
			case err == nil:
				l.keep(ctx, key, v)
			case errors.Is(err, fs.ErrNotExist):
				if restored, ok := l.restore(ctx, key); ok {
					return restored, nil
				}
			}
			return v, err
		}
	}
	l.m.fallbacks("load").Inc()
	return l.local.Load(ctx, key)
}

// restore writes key's local copy back to Redis where Redis has none,
// for the files worth keeping across a lost Redis (restored): the
// certificates, their keys and metadata, and the ACME account. It
// returns what Redis then holds: the copy, or what another node stored
// first.
func (l *Layered) restore(ctx context.Context, key string) ([]byte, bool) {
	if !restored(key) {
		return nil, false
	}
	v, err := l.local.Load(ctx, key)
	if err != nil {
		return nil, false
	}
	stored, err := l.r.StoreIfAbsent(ctx, key, v)
	if err != nil {
		l.outage(ctx, "store", err)
		return nil, false
	}
	if !stored {
		if v, err = l.r.Load(ctx, key); err != nil {
			return nil, false
		}
		l.keep(ctx, key, v)
	} else {
		l.m.restored.Inc()
		l.log.Info("tls storage: wrote this node's copy back to redis, which lacked it", "key", key)
	}
	return v, true
}

// restored reports whether key is written back to a Redis that lacks it:
// certificate material and ACME accounts, whose loss costs orders. Locks,
// challenges and the on-demand order counts are the fleet's state of the
// moment, never brought back from one node's memory of it.
func restored(key string) bool {
	return strings.HasPrefix(key, "certificates/") || strings.HasPrefix(key, "acme/")
}

// Delete deletes key in Redis, then in the local copy; while Redis is
// unreachable it fails and deletes nothing.
func (l *Layered) Delete(ctx context.Context, key string) error {
	err := l.r.Delete(ctx, key)
	if l.outage(ctx, "delete", err) {
		return l.downErr(err)
	}
	if err != nil {
		return err
	}
	if err := l.local.Delete(ctx, key); err != nil {
		l.log.Warn("tls storage: cannot delete the local copy", "key", key, "err", err)
	}
	return nil
}

// Exists asks Redis, or the local copy while Redis is unreachable; a
// file that restore would write back exists when the copy holds it.
func (l *Layered) Exists(ctx context.Context, key string) bool {
	if !l.down.Load() {
		ok, err := l.r.exists(ctx, key)
		if !l.outage(ctx, "exists", err) {
			if !ok && restored(key) && l.local.Exists(ctx, key) {
				_, ok = l.restore(ctx, key)
			}
			return ok
		}
	}
	l.m.fallbacks("exists").Inc()
	return l.local.Exists(ctx, key)
}

// Stat asks Redis, or the local copy while Redis is unreachable; a file
// that restore writes back is stat'ed in Redis once written.
func (l *Layered) Stat(ctx context.Context, key string) (certmagic.KeyInfo, error) {
	if !l.down.Load() {
		info, err := l.r.Stat(ctx, key)
		if !l.outage(ctx, "stat", err) {
			if errors.Is(err, fs.ErrNotExist) && restored(key) {
				if _, ok := l.restore(ctx, key); ok {
					return l.r.Stat(ctx, key)
				}
			}
			return info, err
		}
	}
	l.m.fallbacks("stat").Inc()
	return l.local.Stat(ctx, key)
}

// List asks Redis, or the local copy while Redis is unreachable.
func (l *Layered) List(ctx context.Context, dir string, recursive bool) ([]string, error) {
	if !l.down.Load() {
		keys, err := l.r.List(ctx, dir, recursive)
		if !l.outage(ctx, "list", err) {
			return keys, err
		}
	}
	l.m.fallbacks("list").Inc()
	return l.local.List(ctx, dir, recursive)
}

// Lock takes the lock in Redis; it fails at once while Redis is
// unreachable, so that issuance waits for it.
func (l *Layered) Lock(ctx context.Context, name string) error {
	err := l.r.Lock(ctx, name)
	if l.outage(ctx, "lock", err) {
		return l.downErr(err)
	}
	return err
}

// TryLock is Lock without the wait.
func (l *Layered) TryLock(ctx context.Context, name string) (bool, error) {
	ok, err := l.r.TryLock(ctx, name)
	if l.outage(ctx, "lock", err) {
		return false, l.downErr(err)
	}
	return ok, err
}

// Unlock releases the lock in Redis. While Redis is unreachable it
// fails, and the lock expires by itself (Config.LockTTL).
func (l *Layered) Unlock(ctx context.Context, name string) error {
	err := l.r.Unlock(ctx, name)
	l.outage(ctx, "unlock", err)
	return err
}

// Close stops the pings, releases held locks and closes the client.
func (l *Layered) Close() error {
	l.cancel()
	l.wg.Wait()
	return l.r.Close()
}

var (
	_ certmagic.Storage   = (*Layered)(nil)
	_ certmagic.TryLocker = (*Layered)(nil)
)
