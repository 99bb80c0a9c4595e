package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/redirectd/redirectd/internal/testutil"
)

// redirectd is built at most once per run of this package's tests, on
// the first test that asks for it, and removed by TestMain at the end.
var binary *testutil.Binary

func TestMain(m *testing.M) {
	var err error
	if binary, err = testutil.NewBinary("../../cmd/redirectd"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	binary.Remove()
	os.Exit(code)
}

// testBinary returns the path of redirectd built from this checkout.
func testBinary(tb testing.TB) string { return binary.Path(tb) }
