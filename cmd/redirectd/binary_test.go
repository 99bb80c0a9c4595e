package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/internal/testutil"
)

// parallelPerCPU is how many parallel tests run at once to a CPU (see
// TestMain).
const parallelPerCPU = 4

// The binary is built at most once per run of this package's tests, on
// the first test that asks for it, so that a run of tests that need none
// (-short, -run on the in-process tests, the child a test re-executes in
// a network namespace) builds nothing; TestMain removes it at the end.
var binary *testutil.Binary

// TestMain makes the binary. A run of every test (no -run, not -short)
// starts its build at once, so that the in-process tests, which run one
// at a time before the parallel ones, run while it builds.
//
// The parallel tests run parallelPerCPU to a CPU unless -parallel says:
// most of their time is spent waiting on the processes they start (a
// node's start, nginx and Apache answering one request at a time, a
// source polled every second, Redis going down and up), not on a CPU,
// and with go test's default of one to a CPU two such waits held the
// package's queue on a 2-CPU machine: 64 to 77 s under the race
// detector, against 42 to 57 s four to a CPU, under the same load.
func TestMain(m *testing.M) {
	flag.Parse()
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["test.parallel"] {
		flag.Set("test.parallel", strconv.Itoa(parallelPerCPU*runtime.GOMAXPROCS(0)))
	}
	var err error
	if binary, err = testutil.NewBinary("."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if !given["test.run"] && !given["test.list"] && !testing.Short() && os.Getenv(netnsEnv) == "" {
		binary.Prebuild()
	}
	code := m.Run()
	binary.Remove()
	os.Exit(code)
}

// buildBinary returns the path of redirectd built from this package.
func buildBinary(tb testing.TB) string { return binary.Path(tb) }

// servedConfig is an imported config with head (a [server] table of the
// test's own listen, and any other tables) in front: a [server] table
// the import wrote (absolute_redirect) joins head's, since TOML takes a
// table once.
func servedConfig(head string, body []byte) []byte {
	const imported = "[server]\nabsolute_redirect = true\n"
	if text := string(body); strings.Contains(text, imported) {
		body = []byte(strings.Replace(text, imported, "", 1))
		head = strings.Replace(head, "[server]\n", imported, 1)
	}
	return append([]byte(head), body...)
}

// asNginxPort is an answer of redirectd at ours with its own port, in an
// absolute Location (absolute_redirect), written as nginx's port: the
// two listen on different ports of loopback.
func asNginxPort(answer, ours, port string) string {
	i := strings.LastIndexByte(ours, ':')
	return strings.Replace(answer, ours[i:]+"/", ":"+port+"/", 1)
}
