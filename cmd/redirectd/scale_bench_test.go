package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// BenchmarkStartupMap measures `redirectd serve` on one map file of N exact
// rules: the time from launch to its first correct answer (for the middle
// entry), the CPU time the process used until then (user and system,
// which the other loads of a shared machine do not inflate), and its
// resident memory once serving (RSS is read a second after the first
// answer, when start-up garbage is gone). N is 100,000 unless MAP_RULES gives a comma-separated
// list, e.g. MAP_RULES=100000,1000000,10000000 (the 10M map file takes
// 750 MB of disk).
func BenchmarkStartupMap(b *testing.B) {
	sizes := []int{100000}
	if v := os.Getenv("MAP_RULES"); v != "" {
		sizes = sizes[:0]
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("MAP_RULES=%q: want a comma-separated list of rule counts", v)
			}
			sizes = append(sizes, n)
		}
	}
	bin := buildBinary(b)
	for _, n := range sizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			mapFile := filepath.Join(dir, "big.map")
			conf := filepath.Join(dir, "r.toml")
			addr := testport.Free(b)
			writeFile(b, mapFile, func(w io.Writer) error { return rules.WriteMap(w, n) })
			writeFile(b, conf, func(w io.Writer) error { return rules.WriteMapConfig(w, addr, mapFile) })
			key, want := rules.MapKey(n/2), rules.MapTarget(n/2)
			for b.Loop() {
				start := time.Now()
				cmd := exec.Command(bin, "serve", "-config", conf)
				cmd.Stderr = io.Discard
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				status, loc, err := firstAnswer(addr, key, start.Add(60*time.Second))
				took := time.Since(start)
				cpu := cpuMillis(b, cmd.Process.Pid)
				if err != nil || status != 301 || loc != want {
					cmd.Process.Kill()
					cmd.Wait()
					b.Fatalf("first answer: %d %q %v", status, loc, err)
				}
				time.Sleep(testutil.BenchSettle(time.Second))
				rss := rssKiB(b, cmd.Process.Pid)
				cmd.Process.Signal(syscall.SIGTERM)
				cmd.Wait()
				b.ReportMetric(float64(took.Microseconds())/1000, "ms-to-first-answer")
				b.ReportMetric(float64(rss)/1024, "MiB-RSS")
				b.ReportMetric(float64(cpu), "ms-CPU-to-first-answer")
			}
		})
	}
}

func writeFile(tb testing.TB, name string, fill func(io.Writer) error) {
	tb.Helper()
	f, err := os.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := fill(w); err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// cpuMillis reads a process's user and system CPU time from /proc, in ms.
func cpuMillis(tb testing.TB, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	// The fields after the command name, which is in parentheses:
	// utime and stime are the 12th and 13th, in clock ticks (100 Hz).
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ut, _ := strconv.Atoi(f[11])
	st, _ := strconv.Atoi(f[12])
	return (ut + st) * 10
}
