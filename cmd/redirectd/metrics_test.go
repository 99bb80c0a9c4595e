package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/promtext"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// whereHelp says where a family's HELP text goes, for the failure messages.
const whereHelp = "add a one-line description to the promtext.Help table next to where the family is registered " +
	"(engine/metrics.go metricHelp, cmd/redirectd/internal/daemon/backend.go serviceMetricHelp, engine/promtext/process.go processHelp)"

// TestMetricsPromtool scrapes /metrics of the real binary, with an
// upstream, the access log and a redirect, a forward and a miss counted,
// and checks that every family has HELP text and a TYPE line; then, where
// promtool is installed (Debian's prometheus package), that `promtool
// check metrics` accepts it.
func TestMetricsPromtool(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "origin")
	}))
	defer origin.Close()
	addr, adminAddr := testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "r.toml")
	cfg := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\n\n[access_log]\npath = %q\n\n"+
		"[upstream]\nservers = [%q]\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n",
		addr, adminAddr, filepath.Join(dir, "access.log"), origin.Listener.Addr().String())
	os.WriteFile(file, []byte(cfg), 0o644)
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	if status, _, err := firstAnswer(addr, "/a", time.Now().Add(10*time.Second)); err != nil || status != 301 {
		t.Fatalf("first answer: %d %v\n%s", status, err, stderr.String())
	}
	if resp, err := http.Get("http://" + addr + "/forwarded"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("forwarded: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err := http.Get("http://" + adminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(body)

	types, problems := promtext.Lint(text)
	for _, p := range problems {
		t.Errorf("%s: %s", p, whereHelp)
	}
	for _, fam := range []string{"redirectd_requests_total", "redirectd_upstream_duration_seconds", "redirectd_upstream_server_up",
		"redirectd_access_log_written_lines_total", "redirectd_config_reloads_total", "process_resident_memory_bytes"} {
		if types[fam] == "" {
			t.Errorf("/metrics has no family %s with a TYPE:\n%.3000s", fam, text)
		}
	}
	if types["redirectd_access_log_written_lines_total"] != "counter" {
		t.Errorf("redirectd_access_log_written_lines_total has TYPE %q, want counter", types["redirectd_access_log_written_lines_total"])
	}

	t.Run("promtool", func(t *testing.T) {
		promtool, err := exec.LookPath("promtool")
		if err != nil {
			testutil.Missing(t, "promtool is not installed (Debian package prometheus; .ci/run installs it): /metrics was not linted by it")
		}
		check := exec.Command(promtool, "check", "metrics")
		check.Stdin = strings.NewReader(text)
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics: %v\n%s\n%s", err, out, whereHelp)
		}
	})
}
