package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// BenchmarkIdleConnections measures the server's memory per idle
// keep-alive connection: it opens 10,000 connections to a running
// `redirectd serve`, sends one request on each and reads the answer, then
// compares the server's resident memory with what it was before.
// (IDLE_CONNS changes the count.)
func BenchmarkIdleConnections(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("IDLE_CONNS")); err == nil && v > 0 {
		n = v
	}
	raiseFileLimit(b, uint64(n)+200)
	bin := buildBinary(b)
	addr := testport.Free(b)
	file := filepath.Join(b.TempDir(), "r.toml")
	cfg := fmt.Sprintf("[server]\nlisten = %q\nidle_timeout = \"5m\"\nmax_connections_per_ip = %d\n\n[admin]\nlisten = \"off\"\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n", addr, n+10)
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cmd := exec.Command(bin, "serve", "-config", file)
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if _, _, err := firstAnswer(addr, "/a", time.Now().Add(10*time.Second)); err != nil {
			b.Fatal(err)
		}
		time.Sleep(testutil.BenchSettle(200 * time.Millisecond))
		before := rssKiB(b, cmd.Process.Pid)
		conns := make([]net.Conn, 0, n)
		for range n {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatalf("after %d connections: %v", len(conns), err)
			}
			fmt.Fprint(c, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
			if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 301") {
				b.Fatalf("connection %d: %q %v", len(conns), line, err)
			}
			conns = append(conns, c)
		}
		time.Sleep(testutil.BenchSettle(500 * time.Millisecond))
		after := rssKiB(b, cmd.Process.Pid)
		b.ReportMetric(float64(after-before)*1024/float64(n), "B/idle-conn")
		b.ReportMetric(float64(after)/1024, "MiB-RSS")
		for _, c := range conns {
			c.Close()
		}
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
}

func raiseFileLimit(tb testing.TB, want uint64) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		tb.Fatal(err)
	}
	if rl.Cur >= want {
		return
	}
	rl.Cur = min(rl.Max, want)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur < want {
		tb.Skipf("cannot raise the open-file limit to %d (hard limit %d)", want, rl.Max)
	}
}

// rssKiB reads a process's resident set size from /proc.
func rssKiB(tb testing.TB, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}
