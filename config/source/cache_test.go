package source

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

func stage(t *testing.T, c *Cache, files map[string]string) (string, string) {
	t.Helper()
	dir, err := c.Stage()
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := Hash(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, h
}

func TestHash(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, a := stage(t, c, map[string]string{"redirectd.toml": "x", "m/a.map": "/a /b;"})
	_, same := stage(t, c, map[string]string{"m/a.map": "/a /b;", "redirectd.toml": "x"})
	_, renamed := stage(t, c, map[string]string{"redirectd.toml": "x", "m/b.map": "/a /b;"})
	_, moved := stage(t, c, map[string]string{"redirectd.toml": "x/a", "m/.map": "/b;"}) // same bytes, cut elsewhere
	if a != same {
		t.Errorf("the same files hash differently: %s, %s", a, same)
	}
	if a == renamed || a == moved {
		t.Errorf("different files hash alike: %s, %s, %s", a, renamed, moved)
	}
}

func TestCache(t *testing.T) {
	root := t.TempDir()
	c, err := OpenCache(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Current(); ok || err != nil {
		t.Fatalf("Current of a new cache = %v, %v; want none", ok, err)
	}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var metas []edit.Version
	for i, body := range []string{"one", "two", "three"} {
		dir, h := stage(t, c, map[string]string{"redirectd.toml": body})
		m := edit.Version{Hash: h, Entry: "redirectd.toml", Source: "http://s/x", ETag: body, FetchedAt: t0.Add(time.Duration(i) * time.Minute)}
		got, err := c.Commit(dir, m)
		if err != nil || got != c.Dir(h) {
			t.Fatalf("Commit = %q, %v", got, err)
		}
		if b, _ := os.ReadFile(filepath.Join(got, "redirectd.toml")); string(b) != body {
			t.Fatalf("version %s holds %q, want %q", h, b, body)
		}
		metas = append(metas, m)
	}
	// The same files again: they replace the copy kept, the record is updated.
	dir, h := stage(t, c, map[string]string{"redirectd.toml": "one"})
	metas[0].ETag = "one again"
	if _, err := c.Commit(dir, metas[0]); err != nil || h != metas[0].Hash {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the staged folder is still there after Commit: %v", err)
	}
	// Swapped in one step (exchange), the old copy removed.
	if left, _ := os.ReadDir(filepath.Join(root, "tmp")); len(left) != 0 {
		t.Errorf("tmp/ holds %v after replacing a version", left)
	}
	if err := c.SetCurrent(metas[1].Hash); err != nil {
		t.Fatal(err)
	}
	cur, ok, err := c.Current()
	if !ok || err != nil {
		t.Fatalf("Current: %v %v", ok, err)
	}
	if diff := cmp.Diff(metas[1], cur); diff != "" {
		t.Errorf("Current (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]edit.Version{metas[2], metas[1], metas[0]}, c.List()); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	c.SetPinned(metas[0].Hash)
	if h, ok := c.Pinned(); !ok || h != metas[0].Hash {
		t.Errorf("Pinned = %q %v", h, ok)
	}
	c.SetPinned("")
	if _, ok := c.Pinned(); ok {
		t.Error("still pinned after SetPinned(\"\")")
	}
	c.Prune(map[string]bool{metas[1].Hash: true})
	if diff := cmp.Diff([]edit.Version{metas[1]}, c.List()); diff != "" {
		t.Errorf("List after Prune (-want +got):\n%s", diff)
	}
	var kept []string
	ents, _ := os.ReadDir(filepath.Join(root, "versions"))
	for _, e := range ents {
		kept = append(kept, e.Name())
	}
	if diff := cmp.Diff([]string{metas[1].Hash, metas[1].Hash + ".json"}, kept); diff != "" {
		t.Errorf("versions/ after Prune (-want +got):\n%s", diff)
	}
	if _, err := c.Version("../../etc"); err == nil {
		t.Error("Version of a path, not a hash: no error")
	}
	// A fetch cut short by a crash is cleared at the next open.
	left, _ := c.Stage()
	if _, err := OpenCache(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("a staged folder survived OpenCache: %v", err)
	}
}

// TestCacheInterruptedLoad: a version still marked loading when the cache
// is opened again (its process ended during the load) is loaded again,
// and refused only once MaxInterruptedLoads processes in a row ended
// while loading it; one whose load ended is never refused.
func TestCacheInterruptedLoad(t *testing.T) {
	root := t.TempDir()
	c, err := OpenCache(root)
	if err != nil {
		t.Fatal(err)
	}
	const good, bad = "aaaaaaaaaaaa", "bbbbbbbbbbbb"
	if err := c.BeginLoad(good); err != nil {
		t.Fatal(err)
	}
	c.EndLoad()
	for i := 1; i <= MaxInterruptedLoads; i++ {
		if err := c.BeginLoad(bad); err != nil {
			t.Fatal(err)
		}
		// The process ends here; a new one opens the cache.
		if c, err = OpenCache(root); err != nil {
			t.Fatal(err)
		}
		h, n, ok := c.Interrupted()
		if !ok || h != bad || n != i {
			t.Fatalf("after %d ended loads: Interrupted %q %d %v, want %s %d", i, h, n, ok, bad, i)
		}
		want := i >= MaxInterruptedLoads
		if got := []bool{c.Refused(good), c.Refused(bad)}; !cmp.Equal(got, []bool{false, want}) {
			t.Errorf("after %d ended loads: refused good, bad = %v, want [false %v]", i, got, want)
		}
	}
	if c, err = OpenCache(root); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(c.RefusedFile()); string(b) != bad+"\n" {
		t.Errorf("refused file %q, want the bad hash once", b)
	}
	os.Remove(c.RefusedFile())
	if c.Refused(bad) {
		t.Errorf("still refused after its file was deleted")
	}
}

// TestCacheKilledOnceLoadsAgain: a good version whose load one kill
// interrupted is loaded again at the next start, and a load that then
// completes clears the count.
func TestCacheKilledOnceLoadsAgain(t *testing.T) {
	root := t.TempDir()
	c, err := OpenCache(root)
	if err != nil {
		t.Fatal(err)
	}
	const h = "cccccccccccc"
	for range 5 {
		c.BeginLoad(h) // killed here, then started again
		if c, err = OpenCache(root); err != nil {
			t.Fatal(err)
		}
		if c.Refused(h) {
			t.Fatalf("refused after one interrupted load")
		}
		c.BeginLoad(h)
		c.EndLoad() // this time the load completes
	}
	if _, _, ok := c.Interrupted(); ok {
		t.Errorf("still interrupted after a completed load")
	}
}

// TestCacheStrikesPerVersion: each start loads the last good version
// whole before the version that ends the process is loaded again; those
// loads neither clear nor add to its strikes, so it is refused after
// MaxInterruptedLoads ends; a version killed while loading one time
// fewer, then loaded whole, starts from no strikes again.
func TestCacheStrikesPerVersion(t *testing.T) {
	root := t.TempDir()
	const good, bad, flaky = "aaaaaaaaaaaa", "bbbbbbbbbbbb", "cccccccccccc"
	restart := func() *Cache {
		t.Helper()
		c, err := OpenCache(root)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	loadWhole := func(c *Cache, h string) {
		t.Helper()
		if err := c.BeginLoad(h); err != nil {
			t.Fatal(err)
		}
		c.EndLoad()
	}
	c := restart()
	for i := 1; i <= MaxInterruptedLoads; i++ {
		loadWhole(c, good) // the last good version, at start
		c.BeginLoad(bad)   // the source's: the process ends here
		c = restart()
		h, n, ok := c.Interrupted()
		if !ok || h != bad || n != i {
			t.Fatalf("after %d ends: Interrupted %q %d %v, want %s %d", i, h, n, ok, bad, i)
		}
		want := i >= MaxInterruptedLoads
		if got := []bool{c.Refused(good), c.Refused(bad)}; !cmp.Equal(got, []bool{false, want}) {
			t.Errorf("after %d ends: refused good, bad = %v, want [false %v]", i, got, want)
		}
	}
	for range 2 { // a good version killed once fewer, twice over
		for range MaxInterruptedLoads - 1 {
			loadWhole(c, good)
			c.BeginLoad(flaky) // killed
			c = restart()
		}
		loadWhole(c, flaky)
		c = restart()
	}
	if c.Refused(flaky) {
		t.Errorf("a version that loaded whole between its kills is refused")
	}
	if b, _ := os.ReadFile(c.RefusedFile()); string(b) != bad+"\n" {
		t.Errorf("refused file %q, want the bad hash once", b)
	}
	if _, err := os.Stat(filepath.Join(root, "loading")); !os.IsNotExist(err) {
		t.Errorf("loading file left with no strikes: %v", err)
	}
}

// TestCacheStrikesFile: the loading file keeps the strikes of versions
// not loaded since, marks the one loading, is read as an older redirectd
// wrote it (the version loading, alone), and holds at most maxStrikes.
func TestCacheStrikesFile(t *testing.T) {
	root := t.TempDir()
	name := filepath.Join(root, "loading")
	c, err := OpenCache(root)
	if err != nil {
		t.Fatal(err)
	}
	c.BeginLoad("dddddddddddd") // killed
	if c, err = OpenCache(root); err != nil {
		t.Fatal(err)
	}
	c.BeginLoad("eeeeeeeeeeee")
	b, _ := os.ReadFile(name)
	if diff := cmp.Diff(strikesHeader+"eeeeeeeeeeee 1 loading\ndddddddddddd 1\n", string(b)); diff != "" {
		t.Errorf("loading file while loading (-want +got):\n%s", diff)
	}
	c.EndLoad()
	b, _ = os.ReadFile(name)
	if diff := cmp.Diff(strikesHeader+"dddddddddddd 1\n", string(b)); diff != "" {
		t.Errorf("loading file after a load (-want +got):\n%s", diff)
	}
	if c, err = OpenCache(root); err != nil {
		t.Fatal(err)
	}
	if h, _, ok := c.Interrupted(); ok {
		t.Errorf("Interrupted %s after a process that ended between loads", h)
	}

	for _, tc := range []struct{ file, hash string }{
		{"ffffffffffff\n", "ffffffffffff 1"},
		{"ffffffffffff 2\n", "ffffffffffff 2"},
	} {
		os.WriteFile(name, []byte(tc.file), 0o644)
		if c, err = OpenCache(root); err != nil {
			t.Fatal(err)
		}
		h, n, ok := c.Interrupted()
		if got := fmt.Sprintf("%s %d", h, n); !ok || got != tc.hash {
			t.Errorf("older loading file %q: Interrupted %q %v, want %q", tc.file, got, ok, tc.hash)
		}
	}

	for i := range maxStrikes + 5 {
		c.BeginLoad(fmt.Sprintf("%012x", i)) // each killed
		if c, err = OpenCache(root); err != nil {
			t.Fatal(err)
		}
	}
	b, _ = os.ReadFile(name)
	if lines := strings.Count(string(b), "\n") - 1; lines != maxStrikes {
		t.Errorf("loading file holds %d versions, want %d", lines, maxStrikes)
	}
}
