package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/explain"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// readmeExample returns the TOML block after marker in the README.
func readmeExample(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile("../../matcher/README.md")
	if err != nil {
		t.Fatal(err)
	}
	return testutil.FencedBlock(t, string(data), marker, "toml")
}

// TestReadmeAnswersExample serves the README's example of 410, 451 and
// headers with the binary, sends each request on one kept-alive
// connection, and checks the answers and their access log lines.
func TestReadmeAnswersExample(t *testing.T) {
	t.Parallel()
	example := readmeExample(t, "<!-- answers-example")
	addr, adminAddr := testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "access.log")
	file := filepath.Join(dir, "r.toml")
	cfg := strings.Replace(example, "[server]\n", fmt.Sprintf("[server]\nlisten = %q\n", addr), 1) +
		fmt.Sprintf("\n[admin]\nlisten = %q\n\n[access_log]\npath = %q\nformat = \"json\"\n", adminAddr, logFile)
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	if _, _, err := firstAnswer(addr, "/", time.Now().Add(10*time.Second)); err != nil {
		t.Fatalf("no answer: %v\n%s", err, stderr.String())
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	br := bufio.NewReader(c)
	type got struct {
		Status                          int
		Location, CacheControl, Nosniff string
		Link, Body                      string
	}
	nosniff := "nosniff"
	tests := []struct {
		method, target string
		want           got
	}{
		{"GET", "/old-pricing?plan=pro", got{301, "https://example.com/pricing?plan=pro", "max-age=3600", nosniff, "", ""}},
		{"GET", "/discontinued", got{410, "", "no-store", nosniff, "", "gone\n"}},
		{"HEAD", "/discontinued", got{410, "", "no-store", nosniff, "", ""}},
		{"GET", "/court-order/case-1", got{451, "", "no-store", nosniff, `<https://example.com/legal>; rel="blocked-by"`, "unavailable for legal reasons\n"}},
		{"GET", "/nothing", got{404, "", "no-store", nosniff, "", "not found\n"}},
	}
	for _, tt := range tests {
		fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: example.com\r\n\r\n", tt.method, tt.target)
		resp, err := http.ReadResponse(br, &http.Request{Method: tt.method})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.method, tt.target, err)
		}
		body, _ := io.ReadAll(resp.Body)
		g := got{resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Cache-Control"),
			resp.Header.Get("X-Content-Type-Options"), resp.Header.Get("Link"), string(body)}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.method, tt.target, diff)
		}
		if resp.Close {
			t.Errorf("%s %s: the connection closes", tt.method, tt.target)
		}
	}
	c.Close()
	// /rules lists the 410 and 451 with no to, and each rule's headers
	// as it sends them.
	resp, err := http.Get("http://" + adminAddr + "/rules")
	if err != nil {
		t.Fatal(err)
	}
	var rules []struct {
		From, To string
		Status   int
		Headers  map[string]string
		Hits     uint64
	}
	if err := json.NewDecoder(resp.Body).Decode(&rules); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	type ruleOf struct {
		From, To string
		Status   int
		Headers  map[string]string
		Hits     uint64
	}
	var gotRules []ruleOf
	for _, r := range rules {
		gotRules = append(gotRules, ruleOf(r))
	}
	wantRules := []ruleOf{
		{"/old-pricing", "https://example.com/pricing", 301, map[string]string{"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"}, 1},
		{"/discontinued", "", 410, nil, 2},
		{"/court-order/", "", 451, map[string]string{"Link": `<https://example.com/legal>; rel="blocked-by"`,
			"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}, 1},
	}
	if diff := cmp.Diff(wantRules, gotRules); diff != "" {
		t.Errorf("/rules (-want +got):\n%s", diff)
	}
	// [server] headers change with a reload (SIGHUP), without a restart.
	if err := os.WriteFile(file, []byte(strings.Replace(cfg, `Cache-Control = "no-store"`, `Cache-Control = "no-cache"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	cc := ""
	if !testutil.Eventually(testutil.Patience, func() bool {
		resp, err := http.Get("http://" + addr + "/reload-probe")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cc = resp.Header.Get("Cache-Control")
		return cc == "no-cache"
	}) {
		t.Errorf("after the reload a 404 has Cache-Control %q, want the new \"no-cache\"\n%s", cc, stderr.String())
	}
	// The shutdown flushes every loop's access-log buffer before it
	// closes the log: the lines are in the file once the node exits.
	cmd.Process.Signal(syscall.SIGTERM)
	defer func() {
		if strings.Contains(stderr.String(), "after a restart") {
			t.Errorf("the reload of [server] headers asked for a restart:\n%s", stderr.String())
		}
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		Method, Target, Location string
		Status                   int
		HasRule                  bool
	}
	var lines []line
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Method, Target, Location, Rule string
			Status                         int
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if e.Target == "/" || e.Target == "/reload-probe" {
			continue // the readiness and reload probes
		}
		lines = append(lines, line{e.Method, e.Target, e.Location, e.Status, e.Rule != ""})
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].Target+lines[i].Method < lines[j].Target+lines[j].Method })
	want := []line{
		{"GET", "/court-order/case-1", "", 451, true},
		{"GET", "/discontinued", "", 410, true},
		{"HEAD", "/discontinued", "", 410, true},
		{"GET", "/nothing", "", 404, false},
		{"GET", "/old-pricing?plan=pro", "https://example.com/pricing?plan=pro", 301, true},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("access log (-want +got):\n%s", diff)
	}
}

// TestExplainAnswers checks what explain prints for a 410 and for a
// redirect with headers of its own, and for a miss's server headers.
func TestExplainAnswers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.toml")
	if err := os.WriteFile(file, []byte(readmeExample(t, "<!-- answers-example")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ url, want string }{
		{"/discontinued?x=1", "rule:     " + file + ":12 (exact \"/discontinued\")\nstatus:   410\nlocation: none (a 410 answer has none; its body is \"gone\\n\")\n" +
			"header:   Cache-Control: no-store\nheader:   X-Content-Type-Options: nosniff\n"},
		{"/old-pricing", "rule:     " + file + ":5 (exact \"/old-pricing\")\nstatus:   301\nlocation: https://example.com/pricing\n" +
			"header:   Cache-Control: max-age=3600\nheader:   X-Content-Type-Options: nosniff\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := explain.URL(&b, cfg.Set, tt.url); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.url, diff)
		}
	}
}
