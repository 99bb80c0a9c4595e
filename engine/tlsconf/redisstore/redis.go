package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/redis/go-redis/v9"
)

// Redis is a certmagic.Storage and TryLocker on one Redis server. With
// P the key prefix, it keeps:
//
//	P + "index"         a sorted set of every file's key (all scores 0,
//	                    so ranged by name: a directory is a name range)
//	P + "file/" + key   a hash: v the value, m when it was stored (Unix ms)
//	P + "lock/" + name  a random token, with a time to live
//
// Key names are never matched as glob patterns (no SCAN MATCH), so keys
// holding *, ? or [ need no escaping. Its methods are safe for concurrent
// use.
type Redis struct {
	c      *redis.Client
	prefix string
	index  string
	ttl    time.Duration
	poll   time.Duration
	log    *slog.Logger

	mu    sync.Mutex
	locks map[string]*heldLock
}

// NewRedis makes the storage c describes. It does not connect: the first
// call does, so that a node starts (and serves from its local copy) while
// Redis is down. log may be nil.
func NewRedis(c Config, log *slog.Logger) (*Redis, error) {
	o, err := c.options()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	quietOnce.Do(func() { redis.SetLogger(quiet{}) })
	r := &Redis{c: redis.NewClient(o), prefix: c.KeyPrefix, ttl: c.LockTTL, poll: c.LockPoll,
		log: log, locks: map[string]*heldLock{}}
	if r.prefix == "" {
		r.prefix = DefaultKeyPrefix
	}
	if r.ttl <= 0 {
		r.ttl = DefaultLockTTL
	}
	if r.poll <= 0 {
		r.poll = DefaultLockPoll
	}
	r.index = r.prefix + "index"
	return r, nil
}

// String names the storage in certmagic's logs.
func (r *Redis) String() string { return "redis://" + r.c.Options().Addr + "/" + r.prefix }

// Ping reports whether Redis answers.
func (r *Redis) Ping(ctx context.Context) (err error) {
	defer recovered("ping", &err)
	return r.c.Ping(ctx).Err()
}

func (r *Redis) fileKey(key string) string { return r.prefix + "file/" + key }

// dirRange is the index range of the keys under dir: "dir/" up to, not
// including, "dir0" ('0' is the byte after '/'); the whole index for "".
func dirRange(dir string) (lo, hi string) {
	if dir == "" {
		return "-", "+"
	}
	return "[" + dir + "/", "(" + dir + "0"
}

// Store puts value at key, the value and the index entry at once.
func (r *Redis) Store(ctx context.Context, key string, value []byte) (err error) {
	defer recovered("store", &err)
	_, err = r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, r.fileKey(key), "v", value, "m", time.Now().UnixMilli())
		p.ZAdd(ctx, r.index, redis.Z{Member: key})
		return nil
	})
	if err != nil {
		return fmt.Errorf("cannot store %q in redis: %w", key, err)
	}
	return nil
}

// Load returns the value at key, fs.ErrNotExist when there is none.
func (r *Redis) Load(ctx context.Context, key string) (_ []byte, err error) {
	defer recovered("load", &err)
	v, err := r.c.HGet(ctx, r.fileKey(key), "v").Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%q: %w", key, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot load %q from redis: %w", key, err)
	}
	return v, nil
}

// deleteScript deletes the file KEYS[2] and every file under it as a
// directory, with their index entries, at once. ARGV: the key, the file
// key prefix, and the directory's index range.
var deleteScript = redis.NewScript(`
local n = redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
local kids = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[3], ARGV[4])
for _, k in ipairs(kids) do redis.call('DEL', ARGV[2] .. k) end
redis.call('ZREMRANGEBYLEX', KEYS[1], ARGV[3], ARGV[4])
return n + #kids`)

// Delete deletes key and, as a directory, every key under it; a key that
// does not exist is no error.
func (r *Redis) Delete(ctx context.Context, key string) (err error) {
	defer recovered("delete", &err)
	lo, hi := dirRange(key)
	err = deleteScript.Run(ctx, r.c, []string{r.index, r.fileKey(key)}, key, r.prefix+"file/", lo, hi).Err()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("cannot delete %q in redis: %w", key, err)
	}
	return nil
}

// restoreScript stores a file only where Redis has none: a node writing
// back its copy never overwrites what another node stored meanwhile.
var restoreScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[2], 'v', ARGV[2], 'm', ARGV[3])
redis.call('ZADD', KEYS[1], 0, ARGV[1])
return 1`)

// StoreIfAbsent stores value at key unless Redis holds key already, and
// reports whether it stored it.
func (r *Redis) StoreIfAbsent(ctx context.Context, key string, value []byte) (_ bool, err error) {
	defer recovered("store", &err)
	n, err := restoreScript.Run(ctx, r.c, []string{r.index, r.fileKey(key)}, key, value, time.Now().UnixMilli()).Int()
	if err != nil {
		return false, fmt.Errorf("cannot store %q in redis: %w", key, err)
	}
	return n == 1, nil
}

// Exists reports whether key is a file or a directory; false when Redis
// cannot tell.
func (r *Redis) Exists(ctx context.Context, key string) bool {
	ok, err := r.exists(ctx, key)
	return ok && err == nil
}

func (r *Redis) exists(ctx context.Context, key string) (_ bool, err error) {
	defer recovered("exists", &err)
	info, err := r.Stat(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil && info.Key == key, err
}

// Stat describes key: a file with its size and time, a directory when
// other keys lie under it, fs.ErrNotExist when neither.
func (r *Redis) Stat(ctx context.Context, key string) (_ certmagic.KeyInfo, err error) {
	defer recovered("stat", &err)
	lo, hi := dirRange(key)
	var m *redis.StringCmd
	var size *redis.IntCmd
	var kids *redis.StringSliceCmd
	_, err = r.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		m = p.HGet(ctx, r.fileKey(key), "m")
		size = p.HStrLen(ctx, r.fileKey(key), "v")
		kids = p.ZRangeArgs(ctx, redis.ZRangeArgs{Key: r.index, Start: lo, Stop: hi, ByLex: true, Count: 1})
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return certmagic.KeyInfo{}, fmt.Errorf("cannot stat %q in redis: %w", key, err)
	}
	if ms, err := m.Int64(); err == nil {
		return certmagic.KeyInfo{Key: key, Modified: time.UnixMilli(ms), Size: size.Val(), IsTerminal: true}, nil
	}
	if len(kids.Val()) > 0 {
		return certmagic.KeyInfo{Key: key, IsTerminal: false}, nil
	}
	return certmagic.KeyInfo{}, fmt.Errorf("%q: %w", key, fs.ErrNotExist)
}

// listPage bounds one ZRANGEBYLEX of List, so that a large index is read
// in steps rather than in one reply.
const listPage = 1000

// List returns the keys under dir as certmagic's FileStorage does: the
// files and directories right under it, or with recursive every file and
// directory at any depth; each is dir + "/" + its path below. It is
// fs.ErrNotExist when dir is neither a file nor a directory, and empty
// for a file.
func (r *Redis) List(ctx context.Context, dir string, recursive bool) (_ []string, err error) {
	defer recovered("list", &err)
	lo, hi := dirRange(dir)
	base := ""
	if dir != "" {
		base = dir + "/"
	}
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for {
		page, err := r.c.ZRangeArgs(ctx, redis.ZRangeArgs{Key: r.index, Start: lo, Stop: hi, ByLex: true, Count: listPage}).Result()
		if err != nil {
			return nil, fmt.Errorf("cannot list %q in redis: %w", dir, err)
		}
		for _, k := range page {
			rest := k[len(base):]
			if !recursive {
				if i := strings.IndexByte(rest, '/'); i >= 0 {
					k = base + rest[:i] // a directory right under dir
				}
				add(k)
				continue
			}
			for i := 0; i < len(rest); i++ {
				if rest[i] == '/' {
					add(base + rest[:i])
				}
			}
			add(k)
		}
		if len(page) < listPage {
			break
		}
		lo = "(" + page[len(page)-1]
	}
	if len(out) == 0 {
		if _, err := r.Stat(ctx, dir); err != nil {
			return nil, err
		}
		return nil, nil
	}
	slices.Sort(out)
	return out, nil
}

// Close releases the locks this process holds and closes the client.
func (r *Redis) Close() error {
	r.mu.Lock()
	names := make([]string, 0, len(r.locks))
	for n := range r.locks {
		names = append(names, n)
	}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for _, n := range names {
		if err := r.Unlock(ctx, n); err != nil {
			r.log.Warn("redis storage: cannot release a lock at close; it expires by itself", "lock", n, "ttl", r.ttl, "err", err)
		}
	}
	return r.c.Close()
}

// quiet is go-redis's logger: it would print a line to stderr at each
// failed dial, for every call during an outage; Layered logs the outage
// once instead. go-redis's logger is global, and this package is its only
// user in redirectd.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once

// itoa is strconv.FormatInt for milliseconds, for the scripts' ARGV.
func itoa(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) }

var (
	_ certmagic.Storage   = (*Redis)(nil)
	_ certmagic.TryLocker = (*Redis)(nil)
)
