package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// BenchmarkPromote1M measures the editing path at a million entries on
// the real binary: a draft of N rows (1,000,000 unless
// REDIRECTD_BENCH_SMOKE) uploaded as CSV through the admin API, its diff
// read (GET /drafts/{id}), and its promote (202 and the operation polled
// to its end, or its answer), against a cold load of the same rules: a
// node started on a config that holds the same CSV as a [[csv]] file,
// launch to its first correct answer for the last row. Each iteration
// runs both, alternating which goes first, each node alone on the
// machine, so that a shared machine's load falls on both alike. It
// reports each step's wall time, the promote's and the cold load's CPU
// time (user and system, from /proc), and promote/cold for both.
func BenchmarkPromote1M(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the binary and a million-row CSV")
	}
	size := testutil.BenchSize(1_000_000)
	bin := buildBinary(b)
	dir := b.TempDir()
	csvFile := filepath.Join(dir, "draft.csv")
	writeFile(b, csvFile, func(w io.Writer) error {
		for i := range size {
			if _, err := fmt.Fprintf(w, "/promote/section-%d/page-%d.html,/landing/%d,301\n", i%100, i, i); err != nil {
				return err
			}
		}
		return nil
	})
	csv, err := os.ReadFile(csvFile)
	if err != nil {
		b.Fatal(err)
	}
	last := fmt.Sprintf("/promote/section-%d/page-%d.html", (size-1)%100, size-1)
	lastTo := fmt.Sprintf("/landing/%d", size-1)
	var sum struct{ upload, diff, promote, cold, promoteCPU, coldCPU time.Duration }
	i := 0
	for b.Loop() {
		var p promoteTimes
		var cold, coldCPU time.Duration
		steps := []func(){
			func() { p = promoteOnce(b, bin, csv, last, lastTo) },
			func() { cold, coldCPU = coldLoad(b, bin, csvFile, last, lastTo) },
		}
		if i%2 == 1 {
			steps[0], steps[1] = steps[1], steps[0]
		}
		i++
		steps[0]()
		steps[1]()
		b.Logf("upload %v, diff %v, promote %v (CPU %v); cold load %v (CPU %v)", p.upload, p.diff, p.promote, p.promoteCPU, cold, coldCPU)
		sum.upload += p.upload
		sum.diff += p.diff
		sum.promote += p.promote
		sum.promoteCPU += p.promoteCPU
		sum.cold += cold
		sum.coldCPU += coldCPU
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(i) }
	b.ReportMetric(ms(sum.upload), "ms-upload")
	b.ReportMetric(ms(sum.diff), "ms-diff")
	b.ReportMetric(ms(sum.promote), "ms-promote")
	b.ReportMetric(ms(sum.cold), "ms-cold-load")
	b.ReportMetric(ms(sum.promoteCPU), "ms-CPU-promote")
	b.ReportMetric(ms(sum.coldCPU), "ms-CPU-cold-load")
	b.ReportMetric(float64(sum.promote)/float64(sum.cold), "promote/cold")
	b.ReportMetric(float64(sum.promoteCPU)/float64(max(sum.coldCPU, 1)), "CPU-promote/cold")
}

// promoteConfig is an edited node's config: one rule of its own, so
// that the cold load's config and this one differ only in the [[csv]].
func promoteConfig(addr, adminAddr string) string {
	return fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\ntoken = \"root-token\"\nedits_dir = \"edits\"\n\n"+
		"[access_log]\nenabled = false\n\n[[rule]]\nfrom = \"/old\"\nto = \"/x\"\n", addr, adminAddr)
}

// benchNode starts the binary on conf in a folder of its own, killed
// when the benchmark ends (stopNode ends it before), and returns when it
// started.
func benchNode(b *testing.B, bin, conf string) (cmd *exec.Cmd, stderr *testutil.LockedBuffer, start time.Time) {
	b.Helper()
	dir := b.TempDir()
	file := filepath.Join(dir, "r.toml")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd = exec.Command(bin, "serve", "-config", file, "-log-format", "json")
	stderr = &testutil.LockedBuffer{}
	cmd.Stderr = stderr
	start = time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, stderr, start
}

func stopNode(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

// coldLoad starts a node on the config with the CSV as a [[csv]] file
// and returns the time and CPU time from launch to last's answer.
func coldLoad(b *testing.B, bin, csvFile, last, lastTo string) (wall, cpu time.Duration) {
	b.Helper()
	addr, adminAddr := testport.Free(b), testport.Free(b)
	conf := promoteConfig(addr, adminAddr) + fmt.Sprintf("\n[[csv]]\nfile = %q\n", csvFile)
	cmd, stderr, start := benchNode(b, bin, conf)
	st, loc, err := firstAnswer(addr, last, start.Add(5*time.Minute))
	wall = time.Since(start)
	cpu = time.Duration(cpuMillis(b, cmd.Process.Pid)) * time.Millisecond
	if err != nil || st != 301 || !strings.HasSuffix(loc, lastTo) {
		b.Fatalf("cold load: %s answered %d %q %v\n%s", last, st, loc, err, stderr)
	}
	stopNode(cmd)
	return wall, cpu
}

type promoteTimes struct{ upload, diff, promote, promoteCPU time.Duration }

// promoteOnce starts an edited node, uploads csv to a new draft, reads
// its diff and promotes it, checking that each step reports its outcome
// and that last answers after.
//
// Long because it is the benchmark's one sequence of requests, each
// checked where it is made.
func promoteOnce(b *testing.B, bin string, csv []byte, last, lastTo string) promoteTimes {
	b.Helper()
	addr, adminAddr := testport.Free(b), testport.Free(b)
	cmd, stderr, _ := benchNode(b, bin, promoteConfig(addr, adminAddr))
	if _, _, err := firstAnswer(addr, "/old", time.Now().Add(time.Minute)); err != nil {
		b.Fatalf("no answer: %v\n%s", err, stderr)
	}
	testutil.WaitFor(b, time.Minute, "the admin listener", func() bool {
		c, err := net.Dial("tcp", adminAddr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	// No client timeout: the server's own deadlines are what is tested.
	api := func(method, path, ctype string, body io.Reader, want ...int) (int, string) {
		b.Helper()
		req, _ := http.NewRequest(method, "http://"+adminAddr+path, body)
		req.Header.Set("Authorization", "Bearer root-token")
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatalf("%s %s: no answer (%v)\n%s", method, path, err, stderr)
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		if err != nil {
			b.Fatalf("%s %s: the answer was cut (%v)\n%s", method, path, err, stderr)
		}
		for _, w := range want {
			if resp.StatusCode == w {
				return w, string(got)
			}
		}
		b.Fatalf("%s %s: %d %.300s, want %v", method, path, resp.StatusCode, got, want)
		return 0, ""
	}
	var t promoteTimes
	var d draftRef
	_, body := api("POST", "/drafts", "", nil, 201)
	json.Unmarshal([]byte(body), &d)
	start := time.Now()
	_, body = api("POST", "/drafts/"+d.ID+"/upload", "text/csv", strings.NewReader(string(csv)), 201)
	t.upload = time.Since(start)
	if want := fmt.Sprintf(`"entries": %d`, len(strings.Split(strings.TrimSpace(string(csv)), "\n"))); !strings.Contains(body, want) {
		b.Fatalf("upload: %s, want %s", body, want)
	}
	start = time.Now()
	_, body = api("GET", "/drafts/"+d.ID, "", nil, 200)
	t.diff = time.Since(start)
	if !strings.Contains(body, last) && !strings.Contains(body, "/promote/") {
		b.Fatalf("diff: %.500s, want the draft's rules", body)
	}
	cpu0 := cpuMillis(b, cmd.Process.Pid)
	start = time.Now()
	code, body := api("POST", "/drafts/"+d.ID+"/promote", "application/json", strings.NewReader(`{"message":"a million"}`), 200, 202)
	if code == 202 {
		var op struct {
			StatusURL string `json:"status_url"`
		}
		json.Unmarshal([]byte(body), &op)
		for {
			_, body = api("GET", op.StatusURL, "", nil, 200)
			if !strings.Contains(body, `"running"`) {
				break
			}
			time.Sleep(10 * time.Millisecond) // polling: no bound on what is checked
		}
		if !strings.Contains(body, `"done"`) {
			b.Fatalf("promote: %s\n%s", body, stderr)
		}
	}
	t.promote = time.Since(start)
	t.promoteCPU = time.Duration(cpuMillis(b, cmd.Process.Pid)-cpu0) * time.Millisecond
	if st, loc, err := firstAnswer(addr, last, time.Now().Add(time.Second)); err != nil || st != 301 || !strings.HasSuffix(loc, lastTo) {
		b.Fatalf("after the promote, %s answered %d %q %v", last, st, loc, err)
	}
	stopNode(cmd)
	return t
}
