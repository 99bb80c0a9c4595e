package main

import (
	"fmt"
	"os"
	"strings"
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
