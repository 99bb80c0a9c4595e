package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// redirectd is built at most once per run of this package's tests, on
// the first test that asks for it, and removed by TestMain at the end.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binBuild error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "compare-test-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Not 0700: the servers under test may run as another user.
	os.Chmod(dir, 0o755)
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testBinary returns the path of redirectd built from this checkout.
// Every caller gets the same file: tests run it, none may change it.
func testBinary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		bin := filepath.Join(binDir, "redirectd")
		build := exec.Command("go", "build", "-o", bin, "./cmd/redirectd")
		build.Dir, _ = filepath.Abs("../..")
		if out, err := build.CombinedOutput(); err != nil {
			binBuild = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		binPath = bin
	})
	if binBuild != nil {
		tb.Fatal(binBuild)
	}
	return binPath
}
