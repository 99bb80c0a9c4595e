package redisstore

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/internal/testutil"
)

// globPrefix holds every character SCAN MATCH would take for a pattern,
// so that a storage matching keys by glob would list too much or nothing.
const globPrefix = `t*[?]\x/`

// newRedis is a Redis storage on srv with a short lock poll.
func newRedis(t *testing.T, srv *testutil.Redis, c Config) *Redis {
	t.Helper()
	c.Addr = srv.Addr
	if c.KeyPrefix == "" {
		c.KeyPrefix = globPrefix
	}
	if c.LockPoll == 0 {
		c.LockPoll = 10 * time.Millisecond
	}
	r, err := NewRedis(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// storageKeys are stored in both storages before each comparison: nested
// folders, a name that is a prefix of another's first component ("a" and
// "ab"), and glob and escape characters in a key.
var storageKeys = []string{"a/b/c.crt", "a/b/d.key", "a/e.json", "ab/c", "f", `g*?[x]/h\i`, "g*?[x]/j"}

// observed is what a sequence of calls returned, compared between
// FileStorage and Redis.
type observed struct {
	Loads   map[string]string
	Exists  map[string]bool
	Stats   map[string]string // "file SIZE", "dir", "missing" or "error"
	Lists   map[string][]string
	Deleted map[string][]string // after Delete(key): the recursive list of ""
}

// observe runs the same calls on s.
func observe(t *testing.T, s certmagic.Storage) observed {
	t.Helper()
	ctx := context.Background()
	for _, k := range storageKeys {
		if err := s.Store(ctx, k, []byte("value of "+k)); err != nil {
			t.Fatalf("Store(%q): %v", k, err)
		}
	}
	o := observed{Loads: map[string]string{}, Exists: map[string]bool{}, Stats: map[string]string{},
		Lists: map[string][]string{}, Deleted: map[string][]string{}}
	probe := append(slices.Clone(storageKeys), "a", "a/b", "a/b/c", "b", "g*?[x]", "g*", "missing/x")
	for _, k := range probe {
		// Loading a directory fails in both, but not alike (EISDIR from
		// the file system): certmagic only loads files.
		if v, err := s.Load(ctx, k); err == nil {
			o.Loads[k] = string(v)
		}
		o.Exists[k] = s.Exists(ctx, k)
		switch info, err := s.Stat(ctx, k); {
		case errors.Is(err, fs.ErrNotExist):
			o.Stats[k] = "missing"
		case err != nil:
			o.Stats[k] = "error"
		case info.IsTerminal:
			o.Stats[k] = "file " + info.Key + " " + string(rune('0'+info.Size%10))
		default:
			o.Stats[k] = "dir " + info.Key
		}
	}
	for _, dir := range []string{"a", "a/b", "ab", "g*?[x]", "f", "missing", ""} {
		for _, rec := range []bool{false, true} {
			keys, err := s.List(ctx, dir, rec)
			name := dir
			if rec {
				name += " (recursive)"
			}
			if errors.Is(err, fs.ErrNotExist) {
				keys = []string{"ErrNotExist"}
			} else if err != nil {
				t.Fatalf("List(%q, %v): %v", dir, rec, err)
			}
			slices.Sort(keys)
			o.Lists[name] = keys
		}
	}
	for _, k := range []string{"a/b", "missing", "f", "g*?[x]"} {
		if err := s.Delete(ctx, k); err != nil {
			t.Fatalf("Delete(%q): %v", k, err)
		}
		keys, _ := s.List(ctx, "", true)
		slices.Sort(keys)
		o.Deleted[k] = keys
	}
	return o
}

// TestStorageLikeFileStorage runs the same stores, loads, stats, lists
// and deletes on certmagic's FileStorage and on Redis, and wants the same
// answers: List's recursive and flat forms, directories implied by
// files, fs.ErrNotExist, and keys with glob characters under a prefix
// with glob characters.
func TestStorageLikeFileStorage(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	want := observe(t, &certmagic.FileStorage{Path: t.TempDir()})
	got := observe(t, newRedis(t, srv, Config{}))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Redis differs from FileStorage (-file +redis):\n%s", d)
	}
	// The flat list of "a" is its children, not its grandchildren.
	if d := cmp.Diff([]string{"a/b", "a/e.json"}, want.Lists["a"]); d != "" {
		t.Errorf("the reference itself is not what certmagic documents:\n%s", d)
	}
}

// TestStorageKeyPrefix checks that two prefixes on one server do not see
// each other's keys, even where one prefix is a glob matching the other.
func TestStorageKeyPrefix(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t)
	ctx := context.Background()
	a := newRedis(t, srv, Config{KeyPrefix: "fleet*/"})
	b := newRedis(t, srv, Config{KeyPrefix: "fleetb/"})
	if err := b.Store(ctx, "certificates/x", []byte("b")); err != nil {
		t.Fatal(err)
	}
	if a.Exists(ctx, "certificates/x") || a.Exists(ctx, "certificates") {
		t.Error("a prefix sees another prefix's keys")
	}
	if _, err := a.List(ctx, "certificates", true); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("List in an empty prefix = %v, want fs.ErrNotExist", err)
	}
	info, err := b.Stat(ctx, "certificates/x")
	if err != nil || info.Size != 1 || !info.IsTerminal || time.Since(info.Modified) > time.Minute {
		t.Errorf("Stat = %+v, %v; want a 1-byte file stored just now", info, err)
	}
}

// TestAuth checks the password and the ACL user reach the server.
func TestAuth(t *testing.T) {
	t.Parallel()
	srv := testutil.RunRedis(t, "--requirepass", "sesame", "--user", "fleet", "on", ">opensesame", "~*", "+@all")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		c    Config
		ok   bool
	}{
		{"the password", Config{Password: "sesame"}, true},
		{"an ACL user", Config{Username: "fleet", Password: "opensesame"}, true},
		{"a wrong password", Config{Password: "open"}, false},
		{"none", Config{}, false},
		{"another database", Config{Password: "sesame", DB: 3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := newRedis(t, srv, tc.c).Store(ctx, "k", []byte("v")); (err == nil) != tc.ok {
				t.Errorf("Store = %v, want success %v", err, tc.ok)
			}
		})
	}
}
