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
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestServeProxyProtocol runs the binary with proxy_protocol and
// trusted_proxies from its config: a request behind a v1 header is logged
// with the header's client, and a connection without one is closed
// unanswered and counted in /metrics.
func TestServeProxyProtocol(t *testing.T) {
	t.Parallel()
	addr, admin := testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "access.log")
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf("[server]\nlisten = %q\nproxy_protocol = true\ntrusted_proxies = [\"127.0.0.0/8\"]\n\n"+
		"[admin]\nlisten = %q\n\n[access_log]\npath = %q\nformat = \"json\"\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n", addr, admin, logFile)), 0o644)
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr

	c, err := net.Dial("tcp", addr) // startNode returned: it listens
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(testutil.Patience))
	io.WriteString(c, "PROXY TCP4 203.0.113.7 192.0.2.1 40000 80\r\nGET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	c.Close()
	if err != nil {
		t.Fatalf("behind a PROXY header: %v\n%s", err, stderr.String())
	}
	if resp.StatusCode != 301 {
		t.Fatalf("behind a PROXY header: status %d", resp.StatusCode)
	}
	// Plain HTTP, no header: closed unanswered.
	if s, _, err := firstAnswer(addr, "/a", time.Now().Add(time.Second)); err == nil {
		t.Fatalf("a request without a PROXY header was answered %d", s)
	}
	resp, err = http.Get("http://" + admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), `redirectd_proxy_protocol_rejected_total{reason="missing"} 1`) {
		t.Errorf("/metrics does not count the connection without a header:\n%s", metrics)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	var line struct{ Client, Target string }
	if err := json.Unmarshal(bytes.TrimSpace(data), &line); err != nil || line.Client != "203.0.113.7" || line.Target != "/a" {
		t.Errorf("access log: %q (%v), want the one request with client 203.0.113.7", data, err)
	}
}
