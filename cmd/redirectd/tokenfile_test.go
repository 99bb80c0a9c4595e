package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestTokenFileRotation runs the binary with [admin] token_file, as a
// Kubernetes Secret mounted as a file gives it: the probes answer without
// the token, the file's token opens the rest, and after the file changes
// a reload (SIGHUP, or [rules] watch seeing the file change) makes the new
// token the only one, without a restart.
func TestTokenFileRotation(t *testing.T) {
	t.Parallel()
	addr, adminAddr := testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte("first-token\n"), 0o600)
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\ntoken_file = \"token\"\n\n[access_log]\nenabled = false\n\n"+
		"[rules]\nwatch = true\nwatch_interval = \"100ms\"\n\n"+
		"[[rule]]\nfrom = \"/hit\"\nto = \"/there\"\n", addr, adminAddr)), 0o644)
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	if status, _, err := firstAnswer(addr, "/hit", time.Now().Add(10*time.Second)); err != nil || status != 301 {
		t.Fatalf("first answer: %d %v\n%s", status, err, stderr.String())
	}
	status := func(path, token string) int {
		req, _ := http.NewRequest("GET", "http://"+adminAddr+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	probe := func() []int { return []int{status("/livez", ""), status("/readyz", ""), status("/healthz", "")} }
	if diff := cmp.Diff([]int{200, 200, 200}, probe()); diff != "" {
		t.Errorf("probes without the token (-want +got):\n%s", diff)
	}
	if got := []int{status("/rules", ""), status("/rules", "first-token")}; !cmp.Equal(got, []int{401, 200}) {
		t.Errorf("/rules without and with the file's token: %v, want [401 200]\n%s", got, stderr.String())
	}
	os.WriteFile(tokenFile, []byte("second-token\n"), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	if !testutil.Eventually(testutil.Patience, func() bool { return status("/rules", "second-token") == 200 }) {
		t.Fatalf("the new token is not taken after a reload\n%s", stderr.String())
	}
	if got := status("/rules", "first-token"); got != 401 {
		t.Errorf("the old token after the rotation: %d, want 401", got)
	}
	if strings.Contains(stderr.String(), "restart to apply") {
		t.Errorf("the rotation asked for a restart:\n%s", stderr.String())
	}
	// With [rules] watch, a change of the file alone reloads, as when
	// kubelet updates a mounted Secret.
	os.WriteFile(tokenFile, []byte("third-token"), 0o600)
	if !testutil.Eventually(testutil.Patience, func() bool { return status("/rules", "third-token") == 200 }) {
		t.Fatalf("watch did not take the new token\n%s", stderr.String())
	}
	// A token file gone at reload fails the reload, naming the key; the
	// running token stays.
	os.Remove(tokenFile)
	cmd.Process.Signal(syscall.SIGHUP)
	if !testutil.Eventually(testutil.Patience, func() bool { return strings.Contains(stderr.String(), "token_file: cannot read") }) {
		t.Fatalf("no error naming token_file after the file went:\n%s", stderr.String())
	}
	if got := status("/rules", "third-token"); got != 200 {
		t.Errorf("the running token after a failed reload: %d, want 200", got)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if strings.Contains(stderr.String(), "first-token") || strings.Contains(stderr.String(), "second-token") {
		t.Errorf("the log shows a token:\n%s", stderr.String())
	}
}
