package testutil

import (
	"bufio"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// ProcessCPU is the user and system CPU this process has used. Benchmarks
// report it per operation beside ns/op: on a shared machine wall time
// counts the time other processes had the CPU, and the targets compare
// CPU.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ChildSteps starts this test binary again, running only the test named
// test with env=value in its environment, as a client in a process of its
// own, so that the parent's CPU time and allocations are the server's
// alone. Each call of step writes a byte to the child and waits for one
// back: the child does one unit of work per byte. The child's stderr is
// the parent's; it ends when its stdin closes, at tb's cleanup.
func ChildSteps(tb testing.TB, test, env, value string) (step func()) {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env+"="+value)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { in.Close(); cmd.Wait() })
	out := bufio.NewReader(outPipe)
	return func() {
		if _, err := in.Write([]byte{'.'}); err != nil {
			tb.Fatal(err)
		}
		if c, err := out.ReadByte(); err != nil || c != '.' {
			tb.Fatalf("the client failed (%q, %v): see its output above", c, err)
		}
	}
}
