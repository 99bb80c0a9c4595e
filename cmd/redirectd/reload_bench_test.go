package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// The memory targets of a million-rule map, checked by
// BenchmarkReloadMap from that size up.
const (
	maxLoadPeak   = 1.3 // peak while loading, over the settled RSS
	maxReloadPeak = 1.3 // peak during a reload of the unchanged map, over it
	// maxChangedPeak: a reload of a changed map holds the old and the
	// new set.
	maxChangedPeak = 2.2
	maxSettled     = 1.1 // RSS after a reload, over the RSS after start
	checkedRules   = 1000000
)

// BenchmarkReloadMap measures the memory of `redirectd serve` on one map
// file of N exact rules (MAP_RULES, one count, default 100,000) reloaded
// RELOADS times (default 5) with POST /reload, every second one with the
// file's modification time moved on (so that its table is built again
// rather than taken over), while two keep-alive
// connections ask for 256 of the map's rules, about 500 requests a second
// each, and check every answer; after start and after each reload, one
// rule in 512 is asked for (see touchHits). It reports the RSS once serving
// (MiB-settled: the first answer, then a second for start-up garbage to be
// handed back), the peak RSS of the start over it (load-peak/settled,
// VmHWM), the highest peak of a reload over it, the map unchanged
// (reload-peak/settled) and changed (changed-reload-peak/settled; VmHWM
// is reset before each reload through /proc/PID/clear_refs), the
// highest RSS half a second after a reload over it (settled-after/settled),
// the seconds a reload took, and the requests that failed (a connection
// error, or an answer other than the rule's 301 and Location). A failed
// request fails the benchmark; from 1,000,000 rules on (make bench-scale),
// so does a ratio over its target.
func BenchmarkReloadMap(b *testing.B) {
	n, reloads := envInt(b, "MAP_RULES", 100000), envInt(b, "RELOADS", 5)
	bin := buildBinary(b)
	dir := b.TempDir()
	mapFile, conf := filepath.Join(dir, "big.map"), filepath.Join(dir, "r.toml")
	addr, adminAddr := testport.Free(b), testport.Free(b)
	writeFile(b, mapFile, func(w io.Writer) error { return rules.WriteMap(w, n) })
	writeFile(b, conf, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "[server]\nlisten = %q\n\n[admin]\nlisten = %q\n\n[access_log]\nenabled = false\n\n[[map]]\nfile = %q\n", addr, adminAddr, mapFile)
		return err
	})
	for b.Loop() {
		m := measureReloads(b, bin, conf, mapFile, addr, adminAddr, n, reloads)
		// Logged as well as reported: a failed benchmark prints no metrics.
		b.Logf("%d rules: RSS %.0f MiB after start, peak %.0f MiB loading (%.2fx), %.0f MiB reloading (%.2fx), %.0f MiB reloading a changed map (%.2fx); RSS after a reload up to %.0f MiB (%.2fx); %.2f s per reload; %d of %d requests failed",
			n, m.settled/1024, m.loadPeak/1024, m.loadPeak/m.settled, m.reloadPeak/1024, m.reloadPeak/m.settled,
			m.changedPeak/1024, m.changedPeak/m.settled,
			m.after/1024, m.after/m.settled, m.reloadTime.Seconds()/float64(reloads), m.failed, m.requests)
		b.ReportMetric(m.settled/1024, "MiB-settled")
		b.ReportMetric(m.loadPeak/m.settled, "load-peak/settled")
		b.ReportMetric(m.reloadPeak/m.settled, "reload-peak/settled")
		b.ReportMetric(m.changedPeak/m.settled, "changed-reload-peak/settled")
		b.ReportMetric(m.after/m.settled, "settled-after/settled")
		b.ReportMetric(m.reloadTime.Seconds()/float64(reloads), "s/reload")
		b.ReportMetric(float64(m.failed), "failed-requests")
		if m.failed > 0 {
			b.Errorf("%d of %d requests failed during %d reloads; first: %v", m.failed, m.requests, reloads, m.firstErr)
		}
		if n < checkedRules {
			continue
		}
		for _, c := range []struct {
			what        string
			ratio, most float64
		}{
			{"peak while loading", m.loadPeak / m.settled, maxLoadPeak},
			{"peak during a reload", m.reloadPeak / m.settled, maxReloadPeak},
			{"peak during a reload of a changed map", m.changedPeak / m.settled, maxChangedPeak},
			{"RSS after a reload", m.after / m.settled, maxSettled},
		} {
			if c.ratio > c.most {
				b.Errorf("%s: %.2fx the RSS after start (%.0f MiB), over the %.1fx target", c.what, c.ratio, m.settled/1024, c.most)
			}
		}
	}
}

// reloadMemory is what one run of BenchmarkReloadMap measured, in KiB.
type reloadMemory struct {
	settled, loadPeak, reloadPeak, changedPeak, after float64
	reloadTime                                        time.Duration
	requests, failed                                  int64
	firstErr                                          error
}

func measureReloads(b *testing.B, bin, conf, mapFile, addr, adminAddr string, n, reloads int) reloadMemory {
	cmd := exec.Command(bin, "serve", "-config", conf)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	if status, loc, err := firstAnswer(addr, rules.MapKey(n/2), time.Now().Add(60*time.Second)); err != nil || status != 301 || loc != rules.MapTarget(n/2) {
		b.Fatalf("first answer: %d %q %v", status, loc, err)
	}
	ld := startLoad(addr, n)
	defer ld.stop()
	ld.touchHits(addr, n)
	time.Sleep(testutil.BenchSettle(time.Second))
	var m reloadMemory
	m.settled, m.loadPeak = float64(statusKiB(b, pid, "VmRSS")), float64(statusKiB(b, pid, "VmHWM"))
	for r := range reloads {
		changed := r%2 == 1
		if changed {
			t := time.Now().Add(time.Duration(r) * time.Second)
			if err := os.Chtimes(mapFile, t, t); err != nil {
				b.Fatal(err)
			}
		}
		// Writing 5 to clear_refs resets VmHWM to the current RSS
		// (Linux 4.0 and later).
		if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
			b.Fatalf("cannot reset the peak RSS: %v", err)
		}
		start := time.Now()
		resp, err := http.Post("http://"+adminAddr+"/reload", "", nil)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("reload: %s %s", resp.Status, body)
		}
		m.reloadTime += time.Since(start)
		ld.touchHits(addr, n)
		time.Sleep(testutil.BenchSettle(500 * time.Millisecond))
		if peak := float64(statusKiB(b, pid, "VmHWM")); changed {
			m.changedPeak = max(m.changedPeak, peak)
		} else {
			m.reloadPeak = max(m.reloadPeak, peak)
		}
		m.after = max(m.after, float64(statusKiB(b, pid, "VmRSS")))
	}
	ld.stop()
	m.requests, m.failed, m.firstErr = ld.requests.Load(), ld.failed.Load(), ld.firstErr
	return m
}

// loopbackLoad is the traffic of BenchmarkReloadMap: two keep-alive connections,
// each asking for one of 256 rules spread over the map about every 2 ms
// (a little load, which leaves a shared two-CPU machine to the reload).
// The 256 rules touch a bounded part of the hit counters, so that the RSS
// it adds is the same after start and after each reload.
type loopbackLoad struct {
	done             chan struct{}
	wg               sync.WaitGroup
	once             sync.Once
	requests, failed atomic.Int64
	errOnce          sync.Once
	firstErr         error
}

func startLoad(addr string, n int) *loopbackLoad {
	ld := &loopbackLoad{done: make(chan struct{})}
	for g := range 2 {
		ld.wg.Add(1)
		go func() {
			defer ld.wg.Done()
			ld.run(addr, n, g)
		}()
	}
	return ld
}

func (ld *loopbackLoad) stop() {
	ld.once.Do(func() { close(ld.done); ld.wg.Wait() })
}

func (ld *loopbackLoad) fail(err error) {
	ld.failed.Add(1)
	ld.errOnce.Do(func() { ld.firstErr = err })
}

func (ld *loopbackLoad) run(addr string, n, g int) {
	var c net.Conn
	var br *bufio.Reader
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for k := g; ; k++ {
		select {
		case <-ld.done:
			return
		case <-time.After(2 * time.Millisecond):
		}
		if c == nil {
			var err error
			if c, err = net.Dial("tcp", addr); err != nil {
				ld.requests.Add(1)
				ld.fail(err)
				c = nil
				continue
			}
			br = bufio.NewReader(c)
		}
		i := (k % 256) * (n / 256)
		ld.requests.Add(1)
		c.SetDeadline(time.Now().Add(testutil.Patience))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", rules.MapKey(i))
		resp, err := http.ReadResponse(br, nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if loc := resp.Header.Get("Location"); resp.StatusCode != 301 || loc != rules.MapTarget(i) {
				err = fmt.Errorf("%s: %d %q", rules.MapKey(i), resp.StatusCode, loc)
			}
		}
		if err != nil {
			ld.fail(err)
			c.Close()
			c = nil
		}
	}
}

// touchHits asks for one rule in 512, one per page of the packed table's
// hit counters, on a connection of its own, so that the RSS after start
// and after a reload both hold every counter page, as any spread traffic
// soon makes them: a fresh set's counters are resident or not depending
// on whether the runtime had to clear their memory (6 % of the RSS of a
// million rules).
func (ld *loopbackLoad) touchHits(addr string, n int) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		ld.fail(err)
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	br, bw := bufio.NewReader(c), bufio.NewWriter(c)
	const pipeline = 64
	for lo := 0; lo < n; lo += 512 * pipeline {
		hi := min(n, lo+512*pipeline)
		for i := lo; i < hi; i += 512 {
			fmt.Fprintf(bw, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", rules.MapKey(i))
		}
		if err := bw.Flush(); err != nil {
			ld.fail(err)
			return
		}
		for i := lo; i < hi; i += 512 {
			ld.requests.Add(1)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				ld.fail(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if loc := resp.Header.Get("Location"); resp.StatusCode != 301 || loc != rules.MapTarget(i) {
				ld.fail(fmt.Errorf("%s: %d %q", rules.MapKey(i), resp.StatusCode, loc))
			}
		}
	}
}

// statusKiB reads a field of /proc/PID/status given in kB, such as VmRSS
// or VmHWM (the peak RSS).
func statusKiB(tb testing.TB, pid int, field string) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field+":" {
			v, _ := strconv.Atoi(f[1])
			return v
		}
	}
	tb.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// envInt is the positive integer in the environment variable name, or def.
func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
