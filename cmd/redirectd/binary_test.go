package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The binary is built at most once per run of this package's tests, on
// the first test that asks for it, so that a run of tests that need none
// (-short, -run on the in-process tests, the child a test re-executes in
// a network namespace) builds nothing; TestMain removes it at the end.
var (
	pkgDir   string // the package's folder: tests may t.Chdir away
	binDir   string
	binOnce  sync.Once
	binPath  string
	binBuild error
)

func TestMain(m *testing.M) {
	var err error
	if pkgDir, err = os.Getwd(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if binDir, err = os.MkdirTemp("", "redirectd-test-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// buildBinary returns the path of redirectd built from this package.
// Every caller gets the same file: tests run it, none may change it.
func buildBinary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		bin := filepath.Join(binDir, "redirectd")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = pkgDir
		out, err := build.CombinedOutput()
		if err != nil {
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
