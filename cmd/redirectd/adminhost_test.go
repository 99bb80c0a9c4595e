package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestAdminHostWithoutToken runs the binary with a loopback admin listener
// and no token, and sends raw requests with the Host headers a DNS-rebinding
// page would make the browser send: they get 421 and neither read the
// rules nor reload; loopback names and addresses are served.
func TestAdminHostWithoutToken(t *testing.T) {
	t.Parallel()
	addr, adminAddr := testport.Free(t), testport.Free(t)
	_, port, _ := net.SplitHostPort(adminAddr)
	file := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\n\n[access_log]\nenabled = false\n\n"+
		"[[rule]]\nfrom = \"/hit\"\nto = \"/there\"\n", addr, adminAddr)), 0o644)
	startNode(t, nodeConfig{File: file})
	if status, _, err := firstAnswer(addr, "/hit", time.Now().Add(10*time.Second)); err != nil || status != 301 {
		t.Fatalf("first answer: %d %v", status, err)
	}
	call := func(method, path, host string) (int, string) {
		t.Helper()
		c, err := net.DialTimeout("tcp", adminAddr, testutil.Patience)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(testutil.Patience))
		fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", method, path, host)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s %s, Host %s: %v", method, path, host, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	reloads := func() string {
		t.Helper()
		_, body := call("GET", "/metrics", "127.0.0.1:"+port)
		for line := range strings.Lines(body) {
			if strings.HasPrefix(line, `redirectd_config_reloads_total{result="ok"}`) {
				return strings.TrimSpace(line)
			}
		}
		t.Fatalf("no reload counter in /metrics")
		return ""
	}
	before := reloads()
	for _, host := range []string{"rebind.attacker.example:" + port, "rebind.attacker.example", "localhost.attacker.example",
		"127.0.0.1.attacker.example:" + port, "[::2]:" + port, "10.0.0.1:" + port} {
		for _, ep := range []struct{ method, path string }{{"GET", "/rules"}, {"GET", "/metrics"}, {"GET", "/healthz"}, {"POST", "/reload"}} {
			if code, body := call(ep.method, ep.path, host); code != 421 || strings.Contains(body, "/hit") {
				t.Errorf("%s %s, Host %s: %d %.80q, want 421", ep.method, ep.path, host, code, body)
			}
		}
	}
	if after := reloads(); after != before {
		t.Errorf("a request with a foreign Host reloaded: %s, then %s", before, after)
	}
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "127.0.0.1", "[::1]:" + port} {
		if code, body := call("GET", "/rules", host); code != 200 || !strings.Contains(body, `"/hit"`) {
			t.Errorf("GET /rules, Host %s: %d %.80q, want 200 with the rules", host, code, body)
		}
	}
	if code, body := call("POST", "/reload", "localhost:"+port); code != 200 {
		t.Errorf("POST /reload, Host localhost: %d %.80q", code, body)
	}
	if after := reloads(); after == before {
		t.Errorf("POST /reload with a loopback Host did not reload: %s", after)
	}
}
