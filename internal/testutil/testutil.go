// Package testutil holds the helpers that tests of several packages
// share: a buffer safe to read while a server writes to it, waiting on a
// condition with a deadline, reading a sample from a metrics exposition,
// a fenced block from a README, a loopback accept loop, and real nginx and
// redis-server processes. It is for
// tests only: no product package imports it.
package testutil

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// LockedBuffer is a bytes.Buffer that a test may read while goroutines
// (a server's, a command's output copier) write to it.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Patience bounds a wait on a socket (a dial, a handshake, reading an
// answer) that is only there to end a test that would hang: a machine
// loaded by other work, as CI's or a second `make test` beside this one,
// can take seconds to schedule the peer, and a test that fails there
// fails for the machine, not for the code.
const Patience = 30 * time.Second

// pollEvery is how often Eventually looks again: often enough that a
// test waits little past the moment the condition holds, seldom enough
// that looking costs nothing beside the server under test.
const pollEvery = 5 * time.Millisecond

// Eventually reports whether ok holds within timeout, looking at once
// and then every few milliseconds.
func Eventually(timeout time.Duration, ok func() bool) bool {
	return EventuallyEvery(timeout, pollEvery, ok)
}

// EventuallyEvery is Eventually looking every interval: for a look that
// costs the server under test work of its own (a TLS handshake), where
// looking every few milliseconds for seconds would load the machine the
// test waits on.
func EventuallyEvery(timeout, interval time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if ok() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
}

// WaitFor fails the test at once when ok does not hold within timeout;
// what names the condition in the message.
func WaitFor(tb testing.TB, timeout time.Duration, what string, ok func() bool) {
	tb.Helper()
	if !Eventually(timeout, ok) {
		tb.Fatalf("waited %v for %s", timeout, what)
	}
}

// Metric returns the value of the sample name (its labels included, as
// written: `x_total{reason="y"}`) in a Prometheus text exposition, and
// whether there is one.
func Metric(text, name string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
	}
	return 0, false
}

// FencedBlock returns the body of the first fenced block (```) after the
// first marker in text. With lang set, the block is the first one whose
// fence names that language; else the fence's language is skipped. The
// test fails when there is no marker or no closed block after it.
func FencedBlock(tb testing.TB, text, marker, lang string) string {
	tb.Helper()
	_, rest, ok := strings.Cut(text, marker)
	if !ok {
		tb.Fatalf("no %q in the text", marker)
	}
	if lang != "" {
		_, rest, ok = strings.Cut(rest, "```"+lang+"\n")
	} else if _, rest, ok = strings.Cut(rest, "```"); ok {
		_, rest, ok = strings.Cut(rest, "\n") // the fence's language
	}
	if !ok {
		tb.Fatalf("no fenced block after %q", marker)
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		tb.Fatalf("the block after %q has no closing fence", marker)
	}
	return block
}

// BenchSize is n, or n/100 (at least 1) when REDIRECTD_BENCH_SMOKE is set:
// make test-bench-smoke runs every benchmark once to keep it from rotting,
// and a benchmark of a million rules need not build a million there to
// prove it still runs.
func BenchSize(n int) int {
	if os.Getenv("REDIRECTD_BENCH_SMOKE") == "" {
		return n
	}
	return max(n/100, 1)
}

// BenchSettle is d, or nothing when REDIRECTD_BENCH_SMOKE is set: the
// time a benchmark leaves a server's memory to settle before it reads
// it makes its figure right, and the smoke run keeps no figure.
func BenchSettle(d time.Duration) time.Duration {
	if os.Getenv("REDIRECTD_BENCH_SMOKE") != "" {
		return 0
	}
	return d
}
