package source

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// Cache keeps fetched rule sets in a folder:
//
//	tmp/fetch-*       a fetch in progress (removed by OpenCache)
//	versions/HASH/    a version's files, as fetched
//	versions/HASH.json  its record (edit.Version's Marshal)
//	current           the hash of the last good version
//	pinned            the hash of a version a rollback pinned
//	loading           the hash of a version being loaded now, and how
//	                  many loads of it in a row a process ended in
//	refused           hashes that ended MaxInterruptedLoads processes
//
// A Cache is used by one goroutine at a time.
type Cache struct {
	dir         string
	interrupted string // the version loading when the last process ended
	// strikes is how many processes in a row ended while loading
	// interrupted.
	strikes int
}

// MaxInterruptedLoads is how many processes in a row may end while
// loading one version before it is refused. A process killed for another
// reason (a deploy, an operator's kill -9, a power cut) while it loads a
// good version tries it again at its next start; a version that ends the
// process itself (out of memory) ends it this many times, then is
// refused, so the node serves its last good version instead of looping.
const MaxInterruptedLoads = 3

// OpenCache makes dir's layout when missing and removes what an earlier
// process left half-fetched.
func OpenCache(dir string) (*Cache, error) {
	for _, d := range []string{dir, filepath.Join(dir, "versions"), filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("cannot make [rules] cache_dir: %w; make it writable by redirectd", err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "tmp", "*"))
	for _, l := range left {
		os.RemoveAll(l)
	}
	c := &Cache{dir: dir}
	if h, n, ok := c.readLoading(); ok {
		c.interrupted, c.strikes = h, n
		if n >= MaxInterruptedLoads {
			if err := c.refuse(h); err != nil {
				return nil, err
			}
		}
		return c, nil
	}
	os.Remove(filepath.Join(dir, "loading")) // damaged: names no version
	return c, nil
}

// readLoading reads the loading file: a hash, then the processes that
// ended while loading it (1 when absent, as an older redirectd wrote it).
func (c *Cache) readLoading() (hash string, n int, ok bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, "loading"))
	if err != nil {
		return "", 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || !validHash(f[0]) {
		return "", 0, false
	}
	n = 1
	if len(f) > 1 {
		if m, err := strconv.Atoi(f[1]); err == nil && m > 0 {
			n = m
		}
	}
	return f[0], n, true
}

// BeginLoad records that version hash is being loaded, until EndLoad. A
// process that ends while loading (a crash the loader could not catch, an
// out-of-memory kill, or a kill for any other reason) leaves the record
// behind, counting the loads in a row that ended so; the OpenCache that
// finds MaxInterruptedLoads refuses that version: a rule set that ends a
// node must not end it again after every restart, and one that was only
// loading when the node was killed is loaded again.
func (c *Cache) BeginLoad(hash string) error {
	n := 1
	if hash == c.interrupted {
		n = c.strikes + 1
	}
	return writeAtomic(filepath.Join(c.dir, "loading"), "loading", []byte(hash+" "+strconv.Itoa(n)+"\n"))
}

// EndLoad records that no version is loading: the last one loaded, or
// failed with an error, and the process goes on.
func (c *Cache) EndLoad() {
	os.Remove(filepath.Join(c.dir, "loading"))
	c.interrupted, c.strikes = "", 0
	crashPoint("loaded")
}

// Interrupted returns the version that was loading when the last process
// ended, found by OpenCache, if one was, and how many processes in a row
// ended while loading it.
func (c *Cache) Interrupted() (string, int, bool) {
	return c.interrupted, c.strikes, c.interrupted != ""
}

// Refused reports whether version hash was loading when
// MaxInterruptedLoads processes in a row ended. Deleting RefusedFile
// lets it load again.
func (c *Cache) Refused(hash string) bool {
	b, _ := os.ReadFile(filepath.Join(c.dir, "refused"))
	for _, h := range strings.Fields(string(b)) {
		if h == hash {
			return true
		}
	}
	return false
}

// RefusedFile is the file that lists the refused versions.
func (c *Cache) RefusedFile() string { return filepath.Join(c.dir, "refused") }

func (c *Cache) refuse(hash string) error {
	if c.Refused(hash) {
		return nil
	}
	b, _ := os.ReadFile(filepath.Join(c.dir, "refused"))
	b = append(b, hash+"\n"...)
	// No crash points: a refusal is made at start, before a drill arms
	// them.
	if err := writeAtomic(filepath.Join(c.dir, "refused"), "", b); err != nil {
		return fmt.Errorf("cannot record in [rules] cache_dir the version that was loading when redirectd last stopped: %w", err)
	}
	os.Remove(filepath.Join(c.dir, "loading"))
	return nil
}

// readHash reads a file of the cache holding one version hash.
func (c *Cache) readHash(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		return "", false
	}
	h := strings.TrimSpace(string(b))
	return h, validHash(h)
}

// Stage returns a new empty folder to fetch into, on the cache's file
// system so that Commit is a rename.
func (c *Cache) Stage() (string, error) {
	return os.MkdirTemp(filepath.Join(c.dir, "tmp"), "fetch-")
}

// Commit moves a staged folder holding version m (its Hash, Entry,
// Source, ETag, LastModified and FetchedAt) into the cache and records
// m. It returns the version's folder. A folder of the
// same hash already there is replaced, not trusted: the files just
// fetched are known whole, the old ones may have been damaged on disk
// since (and would then never load again).
//
// The record is written last: a crash before it leaves a folder that no
// record names, which List skips and Prune removes. A folder replaced
// is swapped for the new one in one step where the file system can
// (exchange), since current may name it: a crash between two renames
// would leave current naming a version with no files.
func (c *Cache) Commit(staged string, m edit.Version) (string, error) {
	crashPoint("staged")
	dst := c.Dir(m.Hash)
	if _, err := os.Stat(dst); err == nil {
		if err := c.replace(staged, dst); err != nil {
			return "", fmt.Errorf("cannot replace version %s in [rules] cache_dir: %w", m.Hash, err)
		}
	} else if err := os.Rename(staged, dst); err != nil {
		return "", fmt.Errorf("cannot keep the rule set in [rules] cache_dir: %w", err)
	}
	if err := syncDir(filepath.Join(c.dir, "versions")); err != nil {
		return "", err
	}
	crashPoint("moved")
	b, err := m.Marshal()
	if err != nil {
		return "", err
	}
	var ind bytes.Buffer // for the operator who reads it
	json.Indent(&ind, b, "", "  ")
	return dst, writeAtomic(filepath.Join(c.dir, "versions", m.Hash+".json"), "record", ind.Bytes())
}

// replace puts the staged folder at dst, which holds a version of the
// same hash, and removes the old one, left at staged (under tmp/, which
// OpenCache clears).
func (c *Cache) replace(staged, dst string) error {
	defer os.RemoveAll(staged)
	if err := exchange(staged, dst); err == nil {
		crashPoint("replaced")
		return nil
	}
	// Two steps, where the file system cannot swap: a crash between
	// them leaves no folder at dst until the source is asked again.
	trash := staged + ".old"
	if err := os.Rename(dst, trash); err != nil {
		return err
	}
	defer os.RemoveAll(trash)
	return os.Rename(staged, dst)
}

// Dir returns the folder of the version hash.
func (c *Cache) Dir(hash string) string { return filepath.Join(c.dir, "versions", hash) }

// SetCurrent records hash as the last good version.
func (c *Cache) SetCurrent(hash string) error {
	return writeAtomic(filepath.Join(c.dir, "current"), "current", []byte(hash+"\n"))
}

// SetPinned records hash as pinned by a rollback, so that a restart
// serves it too; "" removes the pin.
func (c *Cache) SetPinned(hash string) error {
	name := filepath.Join(c.dir, "pinned")
	if hash == "" {
		err := os.Remove(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		crashPoint("pinned-removed")
		return syncDir(c.dir) // the unpin survives a power cut too
	}
	return writeAtomic(name, "pinned", []byte(hash+"\n"))
}

// Pinned returns the pinned version's hash, if one is.
func (c *Cache) Pinned() (string, bool) { return c.readHash("pinned") }

// Current returns the last good version, or ok false when there is none.
func (c *Cache) Current() (m edit.Version, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "current"))
	if errors.Is(err, fs.ErrNotExist) {
		return edit.Version{}, false, nil
	}
	if err != nil {
		return edit.Version{}, false, err
	}
	m, err = c.Version(strings.TrimSpace(string(b)))
	return m, err == nil, err
}

// Version returns what the cache recorded of version hash.
func (c *Cache) Version(hash string) (edit.Version, error) {
	var m edit.Version
	if !validHash(hash) {
		return m, fmt.Errorf("%q is not a version hash", cutName(hash))
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "versions", hash+".json"))
	if err != nil {
		return m, fmt.Errorf("version %s is not in [rules] cache_dir: %w", hash, err)
	}
	if err := m.Unmarshal(b); err != nil || m.Hash != hash {
		return m, fmt.Errorf("version %s: its record in [rules] cache_dir is damaged", hash)
	}
	return m, nil
}

// List returns every version the cache holds, the newest fetch first.
func (c *Cache) List() []edit.Version {
	names, _ := filepath.Glob(filepath.Join(c.dir, "versions", "*.json"))
	var out []edit.Version
	for _, n := range names {
		if m, err := c.Version(strings.TrimSuffix(filepath.Base(n), ".json")); err == nil {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].FetchedAt.After(out[j].FetchedAt) })
	return out
}

// Prune removes every version but those in keep: its record first, so
// that a crash meanwhile leaves files that no record names (removed at
// the next Prune), never a version listed without its files.
func (c *Cache) Prune(keep map[string]bool) {
	ents, _ := os.ReadDir(filepath.Join(c.dir, "versions"))
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && !keep[name] {
			os.Remove(filepath.Join(c.dir, "versions", e.Name()))
		}
	}
	for _, e := range ents {
		if hash := strings.TrimSuffix(e.Name(), ".json"); !keep[hash] {
			os.RemoveAll(filepath.Join(c.dir, "versions", e.Name()))
		}
	}
}

// HashLen is the length of a version hash: 12 hex digits (48 bits) tell
// apart the few versions a node keeps, and fit in a metric label.
const HashLen = 12

func validHash(h string) bool {
	if len(h) != HashLen {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// Hash returns a rule set's content hash: the first HashLen hex digits of
// the SHA-256 of every regular file under dir, in path order, each as its
// slash-separated path, a NUL, its size (8 bytes, big endian) and its
// bytes. Names are part of it, so a renamed map file is a new version;
// modification times are not, so the same files fetched again are not.
func Hash(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		io.WriteString(h, filepath.ToSlash(rel)+"\x00")
		binary.Write(h, binary.BigEndian, st.Size())
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("cannot hash the rule set: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:HashLen], nil
}

// syncTree syncs every folder under dir (files are synced as written), so
// that the names survive a crash before a rename makes them the cache's.
func syncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		return syncDir(p)
	})
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cannot sync %s: %w", dir, err)
	}
	return nil
}

// writeSynced writes b to a new file name and syncs it.
func writeSynced(name string, b []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeAtomic replaces name with b: a reader sees the old bytes or the
// new, never a mix, even after a crash. step names its crash points
// (CrashSteps: step-written, step-renamed); "" has none.
func writeAtomic(name, step string, b []byte) error {
	tmp := name + ".tmp"
	if err := writeSynced(tmp, b); err != nil {
		return fmt.Errorf("cannot write %s: %w", name, err)
	}
	if step != "" {
		crashPoint(step + "-written")
	}
	if err := os.Rename(tmp, name); err != nil {
		return fmt.Errorf("cannot write %s: %w", name, err)
	}
	if step != "" {
		crashPoint(step + "-renamed")
	}
	return syncDir(filepath.Dir(name))
}

// WriteAtomic replaces name with b as the cache replaces its files
// (written to a temporary name, synced, renamed, the folder synced), for
// other stores of the node that must survive a crash whole.
func WriteAtomic(name string, b []byte) error { return writeAtomic(name, "", b) }
