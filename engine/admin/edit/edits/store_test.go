package edits

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// TestStore checks that versions round-trip, that current names the one
// serving, that numbers only grow, and that the oldest past keep go
// while the serving one stays.
func TestStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := OpenStore(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.Current(); n != 0 || err != nil {
		t.Errorf("Current of a new store: %d %v, want 0", n, err)
	}
	for i := 1; i <= 3; i++ {
		if s.Next() != i {
			t.Fatalf("Next: %d, want %d", s.Next(), i)
		}
		v := &edit.Version{Number: i, Base: i - 1, Author: "a", Message: "m", Counts: &edit.Counts{Added: i}, Edits: []edit.Edit{mkEdit(edit.OpAdd, "", "/a", "/b", 301)}}
		if err := s.Write(v); err != nil {
			t.Fatal(err)
		}
		if err := s.SetCurrent(i); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]int{2, 3}, s.Numbers()); diff != "" {
		t.Errorf("versions kept (-want +got):\n%s", diff)
	}
	if n, _ := s.Current(); n != 3 {
		t.Errorf("Current: %d, want 3", n)
	}
	v, err := s.Load(3)
	if err != nil || v.Counts.Added != 3 || len(v.Edits) != 1 || v.Edits[0].To != "/b" {
		t.Errorf("Load(3): %+v %v", v, err)
	}
	os.WriteFile(filepath.Join(dir, "current"), []byte("x\n"), 0o644)
	if _, err := OpenStore(dir, 2); err == nil {
		t.Errorf("a current that is not a commit record: no error")
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "versions", "*.tmp")); len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

// TestStoreUncommitted: a version file written by a promote that ended
// before its commit is not loaded (so not served or rolled back to),
// is removed when the store opens again, does not count against keep,
// and its number is not taken again.
func TestStoreUncommitted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := OpenStore(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		n := s.Next()
		if err := s.Write(&edit.Version{Number: n}); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(n); err != nil {
			t.Fatal(err)
		}
	}
	n := s.Next()
	if err := s.Write(&edit.Version{Number: n, Message: "never committed"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(n); err == nil {
		t.Errorf("Load of version %d, written but not committed: no error", n)
	}
	// The process ends here.
	s, err = OpenStore(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.file(n)); err == nil {
		t.Errorf("the file of uncommitted version %d is still there", n)
	}
	if _, err := s.Load(n); err == nil {
		t.Errorf("Load of uncommitted version %d after a restart: no error", n)
	}
	if d := cmp.Diff([]int{1, 2}, s.Numbers()); d != "" {
		t.Errorf("promoted (-want +got):\n%s", d)
	}
	if cur, _ := s.Current(); cur != 2 {
		t.Errorf("serving %d, want 2", cur)
	}
	s.Reserve(n) // the audit log names it
	if got := s.Next(); got != n+1 {
		t.Errorf("Next after a reserved %d: %d", n, got)
	}
}

// TestStoreOldCurrent: a current file as an older redirectd wrote it (the
// number alone) still opens, its versions on disk counted as promoted.
func TestStoreOldCurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "versions"), 0o755)
	for _, n := range []string{"1", "2"} {
		os.WriteFile(filepath.Join(dir, "versions", n+".json"), []byte(`{"number":`+n+`}`), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "current"), []byte("2\n"), 0o644)
	s, err := OpenStore(dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if cur, _ := s.Current(); cur != 2 || !cmp.Equal(s.Numbers(), []int{1, 2}) || s.Next() != 3 {
		t.Errorf("serving %d, promoted %v, next %d; want 2, [1 2], 3", cur, s.Numbers(), s.Next())
	}
}

// TestStoreHead: Head reads a version's number, author, message and
// counts, not its edits.
func TestStoreHead(t *testing.T) {
	t.Parallel()
	s, err := OpenStore(t.TempDir(), 2)
	if err != nil {
		t.Fatal(err)
	}
	v := &edit.Version{Number: 1, Base: 0, Author: "ada", Message: "m", Counts: &edit.Counts{Added: 2}, RollbackOf: 0,
		Edits: []edit.Edit{mkEdit(edit.OpAdd, "", "/a", "/b", 301), mkEdit(edit.OpAdd, "", "/c", "/d", 301)}}
	s.Write(v)
	s.Commit(1)
	h, err := s.Head(1)
	if err != nil {
		t.Fatal(err)
	}
	want := *v
	want.Edits = nil
	if d := cmp.Diff(&want, h); d != "" {
		t.Errorf("Head (-want +got):\n%s", d)
	}
}
