package edits

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/internal/safego"
)

// Store keeps versions in dir/versions/N.json and, in dir/current, the
// commit record: the number serving and the numbers promoted. Each file
// is written to a temporary name, synced and renamed, the folder synced,
// so a crash leaves the old or the new, never half. A version is
// promoted once the commit record names it: a version file that no
// record names (a promote that ended before it committed) is not listed,
// loaded or rolled back to, and is removed when the store opens. Its
// owner serialises calls.
type Store struct {
	dir  string
	keep int
	// serving and promoted are the commit record, promoted oldest
	// first; next is the number the next version takes.
	serving  int
	promoted []int
	next     int
}

// commitRecord is dir/current. An older redirectd wrote the number
// serving alone; its versions on disk count as promoted.
type commitRecord struct {
	Serving  int   `json:"serving"`
	Promoted []int `json:"promoted"`
}

// OpenStore returns the store in dir, made if missing, with what a promote
// that did not commit left removed. keep bounds the versions kept on
// disk (the serving one always is).
func OpenStore(dir string, keep int) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "versions"), 0o755); err != nil {
		return nil, fmt.Errorf("cannot make [admin] edits_dir: %w", err)
	}
	s := &Store{dir: dir, keep: max(keep, 1)}
	if err := s.readCommit(); err != nil {
		return nil, err
	}
	files := s.files()
	if len(files) > 0 {
		s.next = files[len(files)-1] + 1
	}
	for _, n := range files {
		if !slices.Contains(s.promoted, n) {
			os.Remove(s.file(n))
		}
	}
	s.next = max(s.next, s.serving+1, 1)
	return s, nil
}

// readCommit reads dir/current into s.
func (s *Store) readCommit() error {
	name := filepath.Join(s.dir, "current")
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var c commitRecord
	if json.Unmarshal(b, &c) == nil && c.Serving >= 0 {
		s.serving, s.promoted = c.Serving, c.Promoted
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return fmt.Errorf("%s holds %q, not a commit record: delete it to serve the config's own rules", name, cut(string(b)))
	}
	s.serving = n
	for _, f := range s.files() {
		if f <= n {
			s.promoted = append(s.promoted, f)
		}
	}
	return nil
}

// Dir returns the store's folder.
func (s *Store) Dir() string { return s.dir }

func (s *Store) file(n int) string {
	return filepath.Join(s.dir, "versions", strconv.Itoa(n)+".json")
}

// Current returns the number of the version serving, 0 for none (the
// config's own rules).
func (s *Store) Current() (int, error) { return s.serving, nil }

// Load reads promoted version n; 0 is the config's rules, an empty
// version.
func (s *Store) Load(n int) (*edit.Version, error) {
	if n == 0 {
		return &edit.Version{}, nil
	}
	if !slices.Contains(s.promoted, n) {
		return nil, fmt.Errorf("version %d was not promoted, or is no longer kept", n)
	}
	return s.read(n)
}

func (s *Store) read(n int) (*edit.Version, error) {
	b, err := os.ReadFile(s.file(n))
	if err != nil {
		return nil, fmt.Errorf("cannot read version %d: %w", n, err)
	}
	var v edit.Version
	if err := v.Unmarshal(b); err != nil {
		return nil, fmt.Errorf("cannot read version %d (%s): %w", n, s.file(n), err)
	}
	return &v, nil
}

// Head reads promoted version n without its edits: what /versions
// lists, read from the start of the file only (a version of a million
// edits is some 128 MB, and a restart lists ten).
func (s *Store) Head(n int) (*edit.Version, error) {
	if n == 0 {
		return &edit.Version{}, nil
	}
	if !slices.Contains(s.promoted, n) {
		return nil, fmt.Errorf("version %d was not promoted, or is no longer kept", n)
	}
	f, err := os.Open(s.file(n))
	if err != nil {
		return nil, fmt.Errorf("cannot read version %d: %w", n, err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 4096))
	head := map[string]json.RawMessage{}
	if _, err = dec.Token(); err == nil { // {
		for dec.More() {
			var t json.Token
			if t, err = dec.Token(); err != nil {
				break
			}
			key, _ := t.(string)
			if key == "edits" {
				break
			}
			var raw json.RawMessage
			if err = dec.Decode(&raw); err != nil {
				break
			}
			head[key] = raw
		}
	}
	var v edit.Version
	if err == nil {
		b, _ := json.Marshal(head)
		err = v.Unmarshal(b)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read version %d (%s): %w", n, s.file(n), err)
	}
	return &v, nil
}

// Write stores v, durably, not yet promoted: Commit makes it so. Its
// number is not used again (Reserve).
func (s *Store) Write(v *edit.Version) error {
	s.Reserve(v.Number)
	return s.StartWrite(v)()
}

// StartWrite starts storing v, durably, not yet promoted, on a goroutine
// of its own, and returns the wait for its end: a promote writes its
// version file (at a million edits, 130 MB and its fsync) while its
// rules compile, and waits for it before its audit record and commit.
// The wait may be called more than once. v is only read meanwhile. Its
// number stays free until the caller reserves it (a promote whose rules
// do not load leaves it to the next).
func (s *Store) StartWrite(v *edit.Version) (wait func() error) {
	name := s.file(v.Number)
	done := make(chan struct{})
	var err error
	safego.Go("edits: write version", func() {
		defer close(done)
		err = errors.New("the version's write stopped") // should it panic
		err = writeAtomic(name, "version", func(w *bufio.Writer) error { return encode(v, w) })
	})
	return func() error {
		<-done
		return err
	}
}

// Discard removes the file of version n, written but not committed.
func (s *Store) Discard(n int) {
	if !slices.Contains(s.promoted, n) {
		os.Remove(s.file(n))
	}
}

// Commit records n, written before, as promoted and serving, durably:
// from its return on, a restart serves n. The oldest versions past keep
// are dropped from the record, then their files removed.
func (s *Store) Commit(n int) error {
	promoted := slices.Clone(s.promoted)
	if n != 0 && !slices.Contains(promoted, n) {
		promoted = append(promoted, n)
	}
	var dropped []int
	for len(promoted) > s.keep {
		dropped = append(dropped, promoted[0])
		promoted = promoted[1:]
	}
	b, _ := json.Marshal(commitRecord{Serving: n, Promoted: promoted})
	b = append(b, '\n')
	err := writeAtomic(filepath.Join(s.dir, "current"), "current", func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	s.serving, s.promoted = n, promoted
	for _, d := range dropped {
		os.Remove(s.file(d))
	}
	return nil
}

// SetCurrent is Commit.
func (s *Store) SetCurrent(n int) error { return s.Commit(n) }

// Numbers lists the versions promoted and kept, oldest first.
func (s *Store) Numbers() []int { return slices.Clone(s.promoted) }

// files lists the version files on disk, oldest first.
func (s *Store) files() []int {
	ents, _ := os.ReadDir(filepath.Join(s.dir, "versions"))
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".json")); err == nil && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Next returns the number the next version takes: one more than any
// written, committed or not, so numbers never repeat, not even those of
// promotes that failed once their version was written. (A promote
// refused before, its rules not loading, leaves its number free.)
func (s *Store) Next() int { return s.next }

// Reserve makes Next return more than n: a number the audit log names,
// whose version did not commit, is not used again.
func (s *Store) Reserve(n int) { s.next = max(s.next, n+1) }
