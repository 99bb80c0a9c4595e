package edits

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/config/source"
)

// Counts are how many rules a promote added, changed and removed.
type Counts struct {
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Removed int `json:"removed"`
}

// Version is one promoted version as kept: its number, the version its
// draft started from, who promoted it and why, and the whole overlay
// (every edit since the config's own rules, not only this promote's),
// so that loading it needs no other version.
type Version struct {
	Number  int       `json:"number"`
	Base    int       `json:"base"`
	Author  string    `json:"author"`
	Message string    `json:"message"`
	Time    time.Time `json:"time"`
	Counts  Counts    `json:"counts"`
	// RollbackOf is the version a rollback restored, 0 for a promote.
	RollbackOf int    `json:"rollback_of,omitempty"`
	Edits      []Edit `json:"edits"`
}

// Store keeps versions in dir/versions/N.json and the number serving in
// dir/current, each written to a temporary name, synced and renamed, so
// a crash leaves the old or the new, never half. Its owner serialises
// calls.
type Store struct {
	dir  string
	keep int
}

// Open returns the store in dir, made if missing. keep bounds the
// versions kept on disk (the serving one always is).
func Open(dir string, keep int) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, "versions"), 0o755); err != nil {
		return nil, fmt.Errorf("cannot make [admin] edits_dir: %w", err)
	}
	return &Store{dir: dir, keep: max(keep, 1)}, nil
}

// Dir returns the store's folder.
func (s *Store) Dir() string { return s.dir }

func (s *Store) file(n int) string {
	return filepath.Join(s.dir, "versions", strconv.Itoa(n)+".json")
}

// Current returns the number of the version serving, 0 for none (the
// config's own rules).
func (s *Store) Current() (int, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, "current"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s holds %q, not a version number: delete it to serve the config's own rules", filepath.Join(s.dir, "current"), cut(string(b)))
	}
	return n, nil
}

// Load reads version n; 0 is the config's rules, an empty version.
func (s *Store) Load(n int) (*Version, error) {
	if n == 0 {
		return &Version{}, nil
	}
	b, err := os.ReadFile(s.file(n))
	if err != nil {
		return nil, fmt.Errorf("cannot read version %d: %w", n, err)
	}
	var v Version
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("cannot read version %d (%s): %w", n, s.file(n), err)
	}
	return &v, nil
}

// Write stores v (not yet serving: SetCurrent makes it so).
func (s *Store) Write(v *Version) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return source.WriteAtomic(s.file(v.Number), b)
}

// SetCurrent records n as the version serving, and removes the oldest
// versions past keep.
func (s *Store) SetCurrent(n int) error {
	if err := source.WriteAtomic(filepath.Join(s.dir, "current"), []byte(strconv.Itoa(n)+"\n")); err != nil {
		return err
	}
	nums := s.Numbers()
	for len(nums) > s.keep {
		if nums[0] != n {
			os.Remove(s.file(nums[0]))
		}
		nums = nums[1:]
	}
	return nil
}

// Numbers lists the versions kept, oldest first.
func (s *Store) Numbers() []int {
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
// kept, so numbers never repeat.
func (s *Store) Next() int {
	nums := s.Numbers()
	if len(nums) == 0 {
		return 1
	}
	return nums[len(nums)-1] + 1
}
