package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/config/source"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestSourceHostile runs the binary on rule sources that attack it.
//
// testSourceDeepNesting publishes a rule set nesting two million arrays
// (4 MB, a few KB gzipped), which ended the process with a stack overflow
// in the TOML decoder, again after every restart. The node refuses it with
// the line, keeps serving, and does the same after a restart.
func TestSourceHostile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	t.Run("deep nesting", func(t *testing.T) { testSourceDeepNesting(t, bin) })
	t.Run("interrupted load", func(t *testing.T) { testSourceInterruptedLoad(t, bin) })
	t.Run("crashing version", func(t *testing.T) { testSourceCrashingVersion(t, bin) })
	t.Run("header after a redirect", func(t *testing.T) { testSourceHeaderRedirect(t, bin) })
	t.Run("regex budget", func(t *testing.T) { testSourceRegexBudget(t, bin) })
	t.Run("memory budget", func(t *testing.T) { testSourceMemoryBudget(t, bin) })
}

// testSourceMemoryBudget publishes a map of short regexes that each
// compile to about 800 instructions, under what one regex may have (the
// shape of a reviewer's oversized source, whose refusal by the
// instruction budget came after the node's peak RSS grew by 340 MB): it
// is refused by max_rules_bytes at a line of the map, the running rules
// stay, and the node's peak RSS (VmHWM) ends at most 64 MiB above its
// RSS before.
func testSourceMemoryBudget(t *testing.T, bin string) {
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n"})
	node := newSourceNode(t, bin, srv.URL+"/site.tar.gz", t.TempDir())
	node.start()
	node.waitAnswer("/a", 301, "/one", 15*time.Second)
	before, ok := procStatusKiB(node.cmd.Process.Pid, "VmRSS")
	if !ok {
		t.Skip("no /proc/PID/status to read the node's memory from")
	}
	var m strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&m, "\"~^/r%d/a{1,100}b{1,100}c{1,100}d{1,100}$\" /b;\n", i)
	}
	origin.publish(t, map[string]string{"redirectd.toml": "[[map]]\nfile = \"rules.map\"\n", "rules.map": m.String()})
	node.waitMetric(`redirectd_rules_source_failures_total{reason="invalid"}`, 1, 30*time.Second)
	node.waitAnswer("/a", 301, "/one", time.Second)
	node.waitLog("(max_rules_bytes;", "the log does not say the map is past max_rules_bytes")
	if log := node.stderr.String(); !strings.Contains(log, "rules.map:") {
		t.Errorf("the log does not name the map's line past max_rules_bytes:\n%s", log)
	}
	peak, _ := procStatusKiB(node.cmd.Process.Pid, "VmHWM")
	t.Logf("RSS %d MiB before the map, peak %d MiB after its refusal", before>>10, peak>>10)
	if peak-before > 64<<10 {
		t.Errorf("the refused map raised the node's peak RSS by %d MiB over %d MiB, want at most 64 MiB", (peak-before)>>10, before>>10)
	}
}

// procStatusKiB reads a field of /proc/PID/status given in kB.
func procStatusKiB(pid int, field string) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// testSourceRegexBudget publishes a rule set of more regexes than the
// node's [rules] max_regexes: it is refused with the line past the budget,
// and the running rules stay.
func testSourceRegexBudget(t *testing.T, bin string) {
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n"})
	node := newSourceNode(t, bin, srv.URL+"/site.tar.gz", t.TempDir())
	cfg, _ := os.ReadFile(node.file)
	if err := os.WriteFile(node.file, append(cfg, "max_regexes = 10\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	node.start()
	node.waitAnswer("/a", 301, "/one", 15*time.Second)
	var m strings.Builder
	for i := range 20 {
		fmt.Fprintf(&m, "\"~^/r%d/(\\d+)-([a-z]+)$\" /b/$1;\n", i)
	}
	origin.publish(t, map[string]string{"redirectd.toml": "[[map]]\nfile = \"re.map\"\n", "re.map": m.String()})
	node.waitMetric(`redirectd_rules_source_failures_total{reason="invalid"}`, 1, 15*time.Second)
	node.waitAnswer("/a", 301, "/one", time.Second)
	node.waitLog("re.map:11: from: more than 10 regexes", "the log does not name the rule past the budget")
}

func testSourceDeepNesting(t *testing.T, bin string) {
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n"})
	node := newSourceNode(t, bin, srv.URL+"/site.tar.gz", t.TempDir())
	node.start()
	node.waitAnswer("/a", 301, "/one", 15*time.Second)

	const n = 2_000_000
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/two\"\nx = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"})
	node.waitMetric(`redirectd_rules_source_failures_total{reason="invalid"}`, 1, 15*time.Second)
	node.waitAnswer("/a", 301, "/one", time.Second)
	node.waitLog("redirectd.toml:4: nests deeper than 64", "the log does not name the line that nests too deep")
	node.stop()
	node.start()
	node.waitMetric(`redirectd_rules_source_failures_total{reason="invalid"}`, 1, 15*time.Second)
	node.waitAnswer("/a", 301, "/one", time.Second)
}

// testSourceInterruptedLoad starts a node on a cache whose last
// processes ended while they loaded a version (as a crash or an
// out-of-memory kill in the loader leaves it). Ended MaxInterruptedLoads
// times in a row, that version is refused when the source serves it, the
// log says why and how to try it again, and the cached good one keeps
// serving; deleting the refused file lets it load. Ended once (a kill
// for another reason), it is loaded again at the next start.
func testSourceInterruptedLoad(t *testing.T, bin string) {
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n"})
	cache := t.TempDir()
	node := newSourceNode(t, bin, srv.URL+"/site.tar.gz", cache)
	node.start()
	node.waitAnswer("/a", 301, "/one", 15*time.Second)
	node.stop()

	v2 := map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/two\"\n"}
	origin.publish(t, v2)
	h2 := hashFiles(t, v2)
	if err := os.WriteFile(filepath.Join(cache, "loading"), []byte(fmt.Sprintf("%s %d\n", h2, source.MaxInterruptedLoads)), 0o644); err != nil {
		t.Fatal(err)
	}
	node.start()
	node.waitMetric(`redirectd_rules_source_failures_total{reason="invalid"}`, 1, 15*time.Second)
	node.waitAnswer("/a", 301, "/one", time.Second)
	for _, want := range []string{"is refused from now on", "times in a row", filepath.Join(cache, "refused")} {
		node.waitLog(want, fmt.Sprintf("the log does not say %q", want))
	}
	if err := os.Remove(filepath.Join(cache, "refused")); err != nil {
		t.Fatal(err)
	}
	// A new version at the source is loaded; the refused one was never
	// marked good.
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/three\"\n"})
	node.waitAnswer("/a", 301, "/three", 15*time.Second)
	node.stop()

	// One kill while loading: the version is loaded at the next start.
	v4 := map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/four\"\n"}
	origin.publish(t, v4)
	if err := os.WriteFile(filepath.Join(cache, "loading"), []byte(hashFiles(t, v4)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	node.start()
	node.waitAnswer("/a", 301, "/four", 15*time.Second)
	node.waitLog("it is loaded again", "the log does not say the interrupted version is loaded again")
}

// testSourceCrashingVersion publishes a version whose every load ends
// the process (REDIRECTD_TEST_KILL_LOADING names it, as a rule set that
// runs the node out of memory would) and starts the node again each time
// it ends, as a supervisor does. Each start loads the good version the
// cache holds before it fetches the bad one, and that load must not
// forgive the bad one: after MaxInterruptedLoads ends the bad version is
// refused, the log says so, and the node serves the good one instead of
// ending at every start. Then a good version killed while loading
// MaxInterruptedLoads-1 times (another version loaded at each start
// between) loads whole at the next start; killed as many times again
// while loading at start, it is still not refused: its whole load
// forgave the first kills.
func testSourceCrashingVersion(t *testing.T, bin string) {
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n"})
	cache := t.TempDir()
	node := newSourceNode(t, bin, srv.URL+"/site.tar.gz", cache)
	node.start()
	node.waitAnswer("/a", 301, "/one", 15*time.Second)
	node.stop()

	v2 := map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/two\"\n"}
	origin.publish(t, v2)
	h2 := hashFiles(t, v2)
	for ends := 0; ; ends++ {
		if ends > source.MaxInterruptedLoads {
			t.Fatalf("the node ended %d times loading version %s and ends again at each start: it is never refused\n%s", ends, h2, node.stderr)
		}
		if !node.superviseUntil(h2, `redirectd_rules_source_failures_total{reason="invalid"}`) {
			continue
		}
		if ends != source.MaxInterruptedLoads {
			t.Errorf("version %s refused after %d ends, want %d", h2, ends, source.MaxInterruptedLoads)
		}
		break
	}
	node.waitAnswer("/a", 301, "/one", time.Second)
	if b, _ := os.ReadFile(filepath.Join(cache, "refused")); string(b) != h2+"\n" {
		t.Errorf("refused file %q, want %s", b, h2)
	}
	node.waitLog("is refused from now on", "the log does not say the version is refused")
	node.cmd.Process.Kill()
	node.cmd.Wait()

	v3 := map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/three\"\n"}
	origin.publish(t, v3)
	h3 := hashFiles(t, v3)
	for range source.MaxInterruptedLoads - 1 { // loaded by the poll
		if node.superviseUntil(h3, "") {
			t.Fatalf("version %s loaded, though each load of it ends the process", h3)
		}
	}
	node.start()
	node.waitAnswer("/a", 301, "/three", 15*time.Second)
	node.stop()
	origin.setDown(true) // the node ends loading it from the cache
	for range source.MaxInterruptedLoads - 1 {
		if node.superviseUntil(h3, "") {
			t.Fatalf("version %s loaded, though each load of it ends the process", h3)
		}
	}
	node.start()
	node.waitAnswer("/a", 301, "/three", 15*time.Second)
	if b, _ := os.ReadFile(filepath.Join(cache, "refused")); strings.Contains(string(b), h3) {
		t.Errorf("version %s refused, though it loaded whole between its interrupted loads", h3)
	}
}

// superviseUntil starts the node with every load of version kill ending
// it, and waits until either it has ended, by SIGKILL (false), or metric
// is at least 1 (true; "": never). Its own poll may load the version
// before it first answers, so the node's answers are not waited for.
func (n *sourceNode) superviseUntil(kill, metric string) bool {
	n.t.Helper()
	n.cmd = exec.Command(n.bin, "serve", "-config", n.file)
	n.cmd.Env = append(os.Environ(), "REDIRECTD_TEST_KILL_LOADING="+kill)
	stderr := &testutil.LockedBuffer{}
	n.cmd.Stderr, n.stderr = stderr, stderr
	if err := n.cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	cmd := n.cmd
	n.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	hc := &http.Client{Timeout: 5 * time.Second}
	var ended, reached bool
	testutil.Eventually(time.Minute, func() bool {
		if ended = exited(cmd.Process.Pid); ended || metric == "" {
			return ended
		}
		resp, err := hc.Get("http://" + n.adminAddr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		v, ok := testutil.Metric(string(b), metric)
		reached = ok && v >= 1
		return reached
	})
	if !ended && !reached {
		n.t.Fatalf("in a minute the node neither ended nor reached %s:\n%s", metric, stderr)
	}
	if !ended {
		return true
	}
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		n.t.Fatalf("the node ended with %v, not SIGKILL while loading %s:\n%s", cmd.ProcessState, kill, stderr)
	}
	return false
}

// testSourceHeaderRedirect points a node at a source that redirects to
// another address: the source_header reaches the configured origin only.
func testSourceHeaderRedirect(t *testing.T, bin string) {
	origin := &ruleOrigin{}
	home := httptest.NewServer(origin)
	defer home.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n"})
	var mu sync.Mutex
	var seen []string
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Redirect(w, r, home.URL+"/site.tar.gz", http.StatusFound)
	}))
	defer away.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, away.URL+"/site.tar.gz", http.StatusFound)
	}))
	defer redirector.Close()
	node := newSourceNode(t, bin, redirector.URL+"/site.tar.gz", t.TempDir())
	node.start()
	// The rule set is not served: the way back to home drops the header,
	// and home answers 401 without it.
	node.waitMetric(`redirectd_rules_source_failures_total{reason="status"}`, 1, 15*time.Second)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the redirect was not followed")
	}
	for _, h := range seen {
		if h != "" {
			t.Errorf("another address got the source_header: %q", h)
		}
	}
}

// hashFiles returns the version hash the cache gives files.
func hashFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h, err := source.Hash(dir)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
