package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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

// serveBound runs `redirectd serve -config file` on a config whose
// traffic and admin ports are 0, killed when the test ends, and returns
// the addresses the server logged once bound. No port is chosen before
// the server binds it, so none can be taken by another test in between;
// a server that exits or logs nothing within 30 s fails the test with its
// stderr.
func serveBound(tb testing.TB, file string) (cmd *exec.Cmd, addr, adminAddr string, stderr *testutil.LockedBuffer) {
	tb.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd = exec.Command(buildBinary(tb), "serve", "-config", file)
	cmd.Stderr = pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	stderr = &testutil.LockedBuffer{}
	serving := make(chan string, 1)
	go func() { // reads until the server exits: a closed pipe would kill it with SIGPIPE
		defer pr.Close()
		defer close(serving)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			fmt.Fprintln(stderr, sc.Text())
			if strings.Contains(sc.Text(), "msg=serving ") {
				select {
				case serving <- sc.Text():
				default:
				}
			}
		}
	}()
	field := func(line, key string) string {
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, key+"="); ok {
				return v
			}
		}
		return ""
	}
	select {
	case line, ok := <-serving:
		if !ok {
			cmd.Wait()
			tb.Fatalf("redirectd exited before serving (%v):\n%s", cmd.ProcessState, stderr)
		}
		return cmd, field(line, "listen"), field(line, "admin"), stderr
	case <-time.After(30 * time.Second):
		tb.Fatalf("redirectd logged no serving line in 30 s:\n%s", stderr)
	}
	return
}

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
