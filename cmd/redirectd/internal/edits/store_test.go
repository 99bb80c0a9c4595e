package edits

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStore checks that versions round-trip, that current names the one
// serving, that numbers only grow, and that the oldest past keep go
// while the serving one stays.
func TestStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, 2)
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
		v := &Version{Number: i, Base: i - 1, Author: "a", Message: "m", Counts: Counts{Added: i}, Edits: []Edit{edit(OpAdd, "", "/a", "/b", 301)}}
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
	if _, err := s.Current(); err == nil {
		t.Errorf("a current that is not a number: no error")
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "versions", "*.tmp")); len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}
