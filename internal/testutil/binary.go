package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Binary is a command built at most once per run of a package's tests,
// on the first test that asks for it, so that a run that needs none
// (-short, -run on in-process tests, a child a test re-executes) builds
// nothing. A package's TestMain makes it and removes it at the end.
type Binary struct {
	pkg  string // the command's folder, absolute: tests may t.Chdir away
	dir  string
	once sync.Once
	path string
	err  error
}

// NewBinary returns the Binary of the command in the folder pkg.
func NewBinary(pkg string) (*Binary, error) {
	abs, err := filepath.Abs(pkg)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "redirectd-test-bin-")
	if err != nil {
		return nil, err
	}
	// Not 0700: the servers under test may run as another user.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	return &Binary{pkg: abs, dir: dir}, nil
}

// Path returns the built command, building it on the first call (or
// waiting for the build Prebuild started). Every caller gets the same
// file: tests run it, none may change it.
func (b *Binary) Path(tb testing.TB) string {
	tb.Helper()
	b.once.Do(b.build)
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

// Prebuild starts the build now, on a goroutine of its own, for a run
// that will ask for the command: the tests that need none (in-process,
// run one at a time before the parallel ones start) run while it builds
// rather than after, and the first test to ask waits only for what is
// left of it.
func (b *Binary) Prebuild() { go b.once.Do(b.build) }

func (b *Binary) build() {
	bin := filepath.Join(b.dir, filepath.Base(b.pkg))
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = b.pkg
	if out, err := build.CombinedOutput(); err != nil {
		b.err = fmt.Errorf("go build: %v\n%s", err, out)
		return
	}
	b.path = bin
}

// Remove removes the built command, once a build Prebuild started has
// ended (the Once waits for it; if none started, none will).
func (b *Binary) Remove() {
	b.once.Do(func() {})
	os.RemoveAll(b.dir)
}
