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
	"slices"
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
//	loading           the strikes: a line for each version whose loads
//	                  ended processes since it last loaded whole, its
//	                  hash and how many; "loading" ends the line of the
//	                  one being loaded now
//	refused           hashes that ended MaxInterruptedLoads processes
//
// A Cache is used by one goroutine at a time.
type Cache struct {
	dir string
	// strikes are the loading file's lines, the last load begun first;
	// the one begun by this process counts already, since it is on disk
	// before the load and the file is what the next process reads.
	strikes []strike
	// interrupted is the line that was loading when the last process
	// ended, found by OpenCache.
	interrupted strike
	// loadingNow is the version between BeginLoad and EndLoad.
	loadingNow string
}

// strike is a line of the loading file.
type strike struct {
	hash string
	n    int // processes that ended while loading it
}

// MaxInterruptedLoads is how many processes may end while loading one
// version, with no whole load of it between, before it is refused. A
// process killed for another reason (a deploy, an operator's kill -9, a
// power cut) while it loads a good version tries it again at its next
// start, and a load of it that ends forgives the kills; a version that
// ends the process itself (out of memory) ends it this many times, then
// is refused, so the node serves its last good version instead of
// looping. The count is the version's own: the loads of other versions
// between (the last good one, at each start) neither add to it nor clear
// it.
const MaxInterruptedLoads = 3

// maxStrikes bounds the loading file: a version with a strike that is
// never loaded again (the source moved on) stays there until this many
// others had one since.
const maxStrikes = 32

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
	var marked bool
	c.strikes, c.interrupted, marked = c.readStrikes()
	if !marked {
		return c, nil
	}
	// Only the version loading when a process ended can have reached
	// the limit: a load that ends removes its line.
	if c.interrupted.n >= MaxInterruptedLoads {
		if err := c.refuse(c.interrupted.hash); err != nil {
			return nil, err
		}
		c.strikes = slices.DeleteFunc(c.strikes, func(s strike) bool { return s.hash == c.interrupted.hash })
	}
	// That process is gone: its mark is cleared, so that the next start
	// does not report it again. The count stays in the lines. Unwritten,
	// the mark is only reported again: its count did not grow.
	c.writeStrikes("")
	return c, nil
}

// strikesHeader starts the loading file, for the operator who reads it,
// and tells it from an older redirectd's.
const strikesHeader = "# version, processes that ended while loading it since it last loaded whole; \"loading\": the one loading now\n"

// readStrikes reads the loading file: under strikesHeader, a line "HASH
// N", or "HASH N loading" for the one loading when its process ended.
// Without the header, an older redirectd wrote it, holding only the
// version loading then: "HASH N", or "HASH" (one strike). A damaged line
// names no version and is dropped.
func (c *Cache) readStrikes() (strikes []strike, interrupted strike, marked bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, "loading"))
	if err != nil {
		return nil, strike{}, false
	}
	text, current := strings.CutPrefix(string(b), strikesHeader)
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if !validHash(f[0]) || slices.ContainsFunc(strikes, func(s strike) bool { return s.hash == f[0] }) {
			marked = true // rewritten without it
			continue
		}
		s := strike{hash: f[0], n: 1}
		if len(f) > 1 {
			if m, err := strconv.Atoi(f[1]); err == nil && m > 0 {
				s.n = m
			}
		}
		if (len(f) > 2 && f[2] == "loading") || (!current && interrupted.hash == "") {
			interrupted, marked = s, true
		}
		strikes = append(strikes, s)
	}
	return strikes, interrupted, marked
}

// writeStrikes replaces the loading file with c.strikes, marking
// loading's line; with none, it removes the file. Only BeginLoad's write
// (loading not "") has crash points: CrashSteps' loading-written and
// loading-renamed.
func (c *Cache) writeStrikes(loading string) error {
	name := filepath.Join(c.dir, "loading")
	if len(c.strikes) == 0 {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	var b strings.Builder
	b.WriteString(strikesHeader)
	for _, s := range c.strikes {
		fmt.Fprintf(&b, "%s %d", s.hash, s.n)
		if s.hash == loading {
			b.WriteString(" loading")
		}
		b.WriteByte('\n')
	}
	step := ""
	if loading != "" {
		step = "loading"
	}
	return writeAtomic(name, step, []byte(b.String()))
}

// BeginLoad records that version hash is being loaded, until EndLoad,
// as one more strike against it, written (synced) before the load. A
// process that ends while loading (a crash the loader could not catch, an
// out-of-memory kill, or a kill for any other reason) leaves the strike
// behind; the OpenCache that finds MaxInterruptedLoads against the
// version loading refuses it: a rule set that ends a node must not end it
// again after every restart, and one that was only loading when the node
// was killed is loaded again. Each version's strikes are its own, so the
// load of the last good version at each start clears none of them.
func (c *Cache) BeginLoad(hash string) error {
	s := strike{hash: hash, n: 1}
	if i := slices.IndexFunc(c.strikes, func(s strike) bool { return s.hash == hash }); i >= 0 {
		s.n = c.strikes[i].n + 1
		c.strikes = slices.Delete(c.strikes, i, i+1)
	}
	c.strikes = slices.Insert(c.strikes, 0, s)
	if len(c.strikes) > maxStrikes {
		c.strikes = c.strikes[:maxStrikes]
	}
	c.loadingNow = hash
	if err := c.writeStrikes(hash); err != nil {
		return err
	}
	crashLoading(hash)
	return nil
}

// EndLoad records that the version BeginLoad named is no longer loading:
// it loaded, or failed with an error, and the process goes on, so the
// version does not end processes and its strikes are forgiven. A failed
// write leaves them, marked loading, for the next BeginLoad's write to
// correct.
func (c *Cache) EndLoad() {
	c.strikes = slices.DeleteFunc(c.strikes, func(s strike) bool { return s.hash == c.loadingNow })
	if c.interrupted.hash == c.loadingNow {
		c.interrupted = strike{}
	}
	c.loadingNow = ""
	c.writeStrikes("")
	crashPoint("loaded")
}

// Interrupted returns the version that was loading when the last process
// ended, found by OpenCache, if one was and has not loaded whole since,
// and how many processes ended while loading it since it last did.
func (c *Cache) Interrupted() (string, int, bool) {
	return c.interrupted.hash, c.interrupted.n, c.interrupted.hash != ""
}

// Refused reports whether version hash was loading when the
// MaxInterruptedLoads-th process ended while loading it. Deleting
// RefusedFile lets it load again.
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
