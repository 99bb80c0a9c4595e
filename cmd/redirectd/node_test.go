package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/redirectd/redirectd/internal/testutil"
)

// nodeConfig is what startNode runs: `redirectd serve -config FILE ARGS`.
type nodeConfig struct {
	// Config is the config's text, written to r.toml in a folder of the
	// test's own. Its listen addresses may be 127.0.0.1:0: the node's
	// addresses are those it logs once bound, so no port is chosen
	// before the server binds it and none can be taken in between.
	Config string
	// File is a config file already written, when Config is "".
	File string
	// Args follow `serve -config FILE`; Env is added to the environment.
	Args, Env []string
	// Bin is the binary, when not this package's built by buildBinary:
	// a test run again in a network namespace is handed its parent's.
	Bin string
}

// node is a `redirectd serve` process a test started: where it serves
// (as it logged them; adminAddr and tlsAddr are "" when off), its config
// file, and what it wrote to stderr, which the test may read while it
// writes. It is killed when the test ends; the test may stop it first.
type node struct {
	tb                       testing.TB
	cmd                      *exec.Cmd
	file                     string
	addr, adminAddr, tlsAddr string
	stderr                   *testutil.LockedBuffer
}

// startNode starts the built binary on cfg and returns once it logs that
// it serves. A node that exits first, or logs nothing within 30 s, fails
// the test with its stderr.
func startNode(tb testing.TB, cfg nodeConfig) *node {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds the binary")
	}
	n := &node{tb: tb, file: cfg.File, stderr: &testutil.LockedBuffer{}}
	if n.file == "" {
		n.file = filepath.Join(tb.TempDir(), "r.toml")
		if err := os.WriteFile(n.file, []byte(cfg.Config), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	n.start(cfg)
	return n
}

// start runs the node's process on cfg's binary, arguments and
// environment, and waits for its serving line.
func (n *node) start(cfg nodeConfig) {
	n.tb.Helper()
	bin, env := cfg.Bin, cfg.Env
	if bin == "" {
		bin = buildBinary(n.tb)
	}
	cmd := exec.Command(bin, append([]string{"serve", "-config", n.file}, cfg.Args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	// A writer, not a pipe of the test's: exec copies into it, and
	// cmd.Wait returns once the last line is in the buffer.
	w := &stderrWatch{buf: n.stderr, serving: make(chan map[string]string, 1)}
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		n.tb.Fatal(err)
	}
	n.cmd = cmd
	n.tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait() // the test may have waited already
		if n.tb.Failed() {
			log := n.stderr.String()
			n.tb.Logf("redirectd serve -config %s wrote:\n%s", n.file, log[max(0, len(log)-8<<10):])
		}
	})
	var f map[string]string
	if !testutil.Eventually(30*time.Second, func() bool {
		select {
		case f = <-w.serving:
			return true
		default:
			return exited(cmd.Process.Pid)
		}
	}) {
		n.tb.Fatalf("redirectd logged no serving line in 30 s:\n%s", n.stderr)
	}
	if f == nil {
		cmd.Wait()
		n.tb.Fatalf("redirectd exited before serving (%v):\n%s", cmd.ProcessState, n.stderr)
	}
	n.addr, n.adminAddr, n.tlsAddr = f["listen"], f["admin"], f["tls"]
}

// exited reports whether the child pid has exited, leaving it to be
// waited for (WNOWAIT): the test's cmd.Wait still reaps it.
func exited(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err != nil || info.Signo != 0 // Linux leaves info zero while the child runs
}

// stderrWatch is a node's stderr: each write goes to buf, and the first
// serving line's fields to serving. exec calls Write from one goroutine.
type stderrWatch struct {
	buf     *testutil.LockedBuffer
	partial []byte
	serving chan map[string]string
}

func (w *stderrWatch) Write(p []byte) (int, error) {
	w.buf.Write(p)
	w.partial = append(w.partial, p...)
	for {
		line, rest, ok := bytes.Cut(w.partial, []byte("\n"))
		if !ok {
			break
		}
		if f := servingLine(string(line)); f != nil {
			select {
			case w.serving <- f:
			default:
			}
		}
		w.partial = rest
	}
	return len(p), nil
}

// servingLine returns the fields of line when it is the daemon's
// "serving" line, in the text or the JSON log format; else nil.
func servingLine(line string) map[string]string {
	f := map[string]string{}
	if strings.HasPrefix(line, "{") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["msg"] != "serving" {
			return nil
		}
		for k, v := range m {
			f[k] = fmt.Sprint(v)
		}
		return f
	}
	if !strings.Contains(line, "msg=serving ") {
		return nil
	}
	for _, field := range strings.Fields(line) {
		if k, v, ok := strings.Cut(field, "="); ok {
			f[k] = v
		}
	}
	return f
}

// signal sends sig to the node.
func (n *node) signal(sig os.Signal) {
	n.tb.Helper()
	if err := n.cmd.Process.Signal(sig); err != nil {
		n.tb.Fatalf("signal %v: %v", sig, err)
	}
}
