package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
)

// TestAdminAPI runs the binary with the admin listener and a token and
// exercises every endpoint, then stops it with SIGTERM.
func TestAdminAPI(t *testing.T) {
	t.Parallel()
	addr, adminAddr := testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "r.toml")
	good := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\ntoken = \"s3cret\"\n\n[access_log]\nenabled = false\n\n"+
		"[[rule]]\nfrom = \"/hit\"\nto = \"/there\"\n\n[[rule]]\nfrom = \"/unused\"\nto = \"/x\"\n", addr, adminAddr)
	os.WriteFile(file, []byte(good), 0o644)
	nd := startNode(t, nodeConfig{File: file, Args: []string{"-log-format", "json"}})
	cmd, stderr := nd.cmd, nd.stderr
	if status, _, err := firstAnswer(addr, "/hit", time.Now().Add(10*time.Second)); err != nil || status != 301 {
		t.Fatalf("first answer: %d %v\n%s", status, err, stderr.String())
	}
	call := func(method, path string, token bool) (int, string) {
		req, _ := http.NewRequest(method, "http://"+adminAddr+path, nil)
		if token {
			req.Header.Set("Authorization", "Bearer s3cret")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := call("GET", "/healthz", false); code != 200 {
		t.Errorf("/healthz without token: %d", code)
	}
	if code, _ := call("GET", "/metrics", false); code != 401 {
		t.Errorf("/metrics without token: %d, want 401", code)
	}
	if code, body := call("GET", "/readyz", true); code != 200 {
		t.Errorf("/readyz: %d %q", code, body)
	}
	code, body := call("GET", "/metrics", true)
	for _, want := range []string{
		`redirectd_requests_total{outcome="redirect",status="301"} 1`,
		`redirectd_connections_accepted_total`,
		`redirectd_rules{kind="exact"} 2`,
		`process_resident_memory_bytes`,
	} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%.2000s", want, body)
		}
	}
	code, body = call("GET", "/rules", true)
	var rules []struct {
		From   string `json:"from"`
		Hits   uint64 `json:"hits"`
		Source string `json:"source"`
	}
	if err := json.Unmarshal([]byte(body), &rules); code != 200 || err != nil || len(rules) != 2 || rules[0].Hits != 1 || rules[0].Source != file+":11" {
		t.Errorf("/rules: %d %v %q", code, err, body)
	}
	if code, body = call("GET", "/rules?unused=1", true); !strings.Contains(body, "/unused") || strings.Contains(body, `"/hit"`) {
		t.Errorf("/rules?unused=1: %d %q", code, body)
	}
	if code, body = call("GET", "/explain?url=/hit%3Fq%3D1", true); code != 200 || !strings.Contains(body, "location: /there?q=1") {
		t.Errorf("/explain: %d %q", code, body)
	}
	if code, body = call("GET", "/explain?url=/hit&header=Accept-Language%3A%20de&client=203.0.113.9", true); code != 200 || !strings.Contains(body, "location: /there") {
		t.Errorf("/explain with a header field and a client: %d %q", code, body)
	}
	if code, body = call("GET", "/explain?url=/hit&header=no-colon", true); code != 400 || !strings.Contains(body, "is not a header field") {
		t.Errorf("/explain with a malformed header field: %d %q", code, body)
	}
	if code, body = call("GET", "/explain?url=/hit&client=nope", true); code != 400 || !strings.Contains(body, "is not an IP address") {
		t.Errorf("/explain with a malformed client: %d %q", code, body)
	}
	// A broken config is refused with its error; the rules stay.
	os.WriteFile(file, []byte(good+"\n[[rule]]\nfrom = \"/bad\"\nstatus = 999\nto = \"/x\"\n"), 0o644)
	if code, body = call("POST", "/reload", true); code != 400 || !strings.Contains(body, "status: 999 is not a redirect status") {
		t.Errorf("/reload of a bad config: %d %q", code, body)
	}
	os.WriteFile(file, []byte(good+"\n[[rule]]\nfrom = \"/new\"\nto = \"/y\"\n"), 0o644)
	if code, body = call("POST", "/reload", true); code != 200 {
		t.Errorf("/reload: %d %q", code, body)
	}
	if status, loc, err := firstAnswer(addr, "/new", time.Now().Add(time.Second)); status != 301 || loc != "/y" {
		t.Errorf("rule added by /reload: %d %q %v", status, loc, err)
	}
	if _, body = call("GET", "/metrics", true); !strings.Contains(body, `redirectd_config_reloads_total{result="failed"} 1`) ||
		!strings.Contains(body, `redirectd_config_reloads_total{result="ok"} 1`) {
		t.Errorf("reload counters:\n%.3000s", body)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `"msg":"stopped"`) {
		t.Errorf("no JSON log line for the stop:\n%s", stderr.String())
	}
}

// TestAdminNeedsTokenOffLoopback checks that an admin listener on a public
// address is refused without a token.
func TestAdminNeedsTokenOffLoopback(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, []byte("[server]\nlisten = \"127.0.0.1:0\"\n\n[admin]\nlisten = \"0.0.0.0:0\"\n"), 0o644)
	code, _, errs := runCmd("serve", "-config", file)
	if code != 1 || !strings.Contains(errs, "token") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}
