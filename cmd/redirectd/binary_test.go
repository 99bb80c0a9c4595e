package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/redirectd/redirectd/internal/testutil"
)

// The binary is built at most once per run of this package's tests, on
// the first test that asks for it, so that a run of tests that need none
// (-short, -run on the in-process tests, the child a test re-executes in
// a network namespace) builds nothing; TestMain removes it at the end.
var binary *testutil.Binary

func TestMain(m *testing.M) {
	var err error
	if binary, err = testutil.NewBinary("."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	binary.Remove()
	os.Exit(code)
}

// buildBinary returns the path of redirectd built from this package.
func buildBinary(tb testing.TB) string { return binary.Path(tb) }
