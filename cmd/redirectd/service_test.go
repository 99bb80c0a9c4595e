package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// startBinary runs `redirectd serve` on cfg (a config body with %[1]s for
// the traffic address and %[2]s for the admin address) and waits until
// path answers.
func startBinary(t *testing.T, cfg, path string) (cmd *exec.Cmd, addr, adminAddr, file string, stderr *testutil.LockedBuffer) {
	t.Helper()
	addr, adminAddr = testport.Free(t), testport.Free(t)
	file = filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf(cfg, addr, adminAddr)), 0o644)
	cmd, stderr = serveFile(t, file, addr, path)
	return cmd, addr, adminAddr, file, stderr
}

// serveFile runs `redirectd serve -config file` with args, killed when the
// test ends (the test may stop it and Wait itself), and waits until GET path on addr answers (not at all when
// path is ""). Its stderr is read by the test while it writes.
func serveFile(t *testing.T, file, addr, path string, args ...string) (*exec.Cmd, *testutil.LockedBuffer) {
	t.Helper()
	cmd := exec.Command(buildBinary(t), append([]string{"serve", "-config", file}, args...)...)
	stderr := &testutil.LockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // the test may have waited already
	if path != "" {
		if _, _, err := firstAnswer(addr, path, time.Now().Add(10*time.Second)); err != nil {
			t.Fatalf("no answer: %v\n%s", err, stderr)
		}
	}
	return cmd, stderr
}

// httpGet sends GET url (with Host host when not "") and returns the
// status and body.
func httpGet(t *testing.T, url, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// keepAliveLoad runs n clients sending GET path on keep-alive connections
// to addr, each expecting a 301 to location, until the returned function
// is called; that function returns the requests answered and failed.
func keepAliveLoad(addr, path, location string, n int) func() (ok, failed int64) {
	var stop atomic.Bool
	var answered, failures atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				failures.Add(1)
				return
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for !stop.Load() {
				c.SetDeadline(time.Now().Add(5 * time.Second))
				io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(br, nil)
				if err != nil || resp.StatusCode != 301 || resp.Header.Get("Location") != location {
					failures.Add(1)
					return
				}
				resp.Body.Close()
				answered.Add(1)
			}
		}()
	}
	return func() (int64, int64) {
		stop.Store(true)
		wg.Wait()
		return answered.Load(), failures.Load()
	}
}

// TestReloadUnderLoad reloads 50 times in a row while clients keep sending
// requests on keep-alive connections: none may fail or see a wrong answer.
func TestReloadUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const cfg = "[server]\nlisten = %q\n\n[admin]\nlisten = %q\n\n[access_log]\nenabled = false\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"
	_, addr, adminAddr, _, stderr := startBinary(t, fmt.Sprintf(cfg, "%[1]s", "%[2]s"), "/a")
	stopLoad := keepAliveLoad(addr, "/a", "/b", 4)
	time.Sleep(100 * time.Millisecond)
	for i := range 50 {
		resp, err := http.Post("http://"+adminAddr+"/reload", "", nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("reload %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	ok, failed := stopLoad()
	if failed > 0 || ok == 0 {
		t.Fatalf("%d requests answered, %d failed across 50 reloads\n%s", ok, failed, stderr)
	}
	t.Logf("%d requests answered across 50 reloads", ok)
}

// TestGracefulShutdown stops the server with SIGTERM while a forwarded
// request is in flight and an idle keep-alive connection is open: the
// request is answered, the idle connection closed, /readyz turns 503, and
// the process exits 0.
func TestGracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(800 * time.Millisecond)
		io.WriteString(w, "slow answer")
	}))
	defer origin.Close()
	cfg := "[server]\nlisten = %[1]q\nshutdown_timeout = \"5s\"\n\n[admin]\nlisten = %[2]q\n\n[upstream]\nservers = [\"" +
		origin.Listener.Addr().String() + "\"]\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"
	cmd, addr, adminAddr, _, stderr := startBinary(t, cfg, "/a")

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(idle, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
	idleR := bufio.NewReader(idle)
	if resp, err := http.ReadResponse(idleR, nil); err != nil || resp.StatusCode != 301 {
		t.Fatalf("idle connection's request: %v %v", resp, err)
	}

	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(slow, "GET /forwarded HTTP/1.1\r\nHost: x\r\n\r\n")
	time.Sleep(200 * time.Millisecond) // the request is with the upstream
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)

	time.Sleep(100 * time.Millisecond)
	if resp, err := http.Get("http://" + adminAddr + "/readyz"); err != nil || resp.StatusCode != 503 {
		t.Errorf("/readyz while draining: %v %v", resp, err)
	}
	idle.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := idleR.ReadByte(); err != io.EOF {
		t.Errorf("idle keep-alive connection not closed by the drain: %v", err)
	}
	slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(slow), nil)
	if err != nil {
		t.Fatalf("in-flight request lost: %v\n%s", err, stderr)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "slow answer" {
		t.Fatalf("in-flight request: %d %q", resp.StatusCode, body)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, stderr)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("shutdown took %v", took)
	}
}

// TestWatchReload checks [rules] watch: editing a map file reloads the
// rules without a signal.
func TestWatchReload(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "r.map")
	os.WriteFile(mapFile, []byte("/m /first;\n"), 0o644)
	cfg := "[server]\nlisten = %[1]q\n\n[admin]\nlisten = %[2]q\n\n[rules]\nwatch = true\nwatch_interval = \"100ms\"\n\n" +
		"[[map]]\nfile = " + fmt.Sprintf("%q", mapFile) + "\n"
	_, addr, _, _, stderr := startBinary(t, cfg, "/m")
	os.WriteFile(mapFile, []byte("/m /second;\n"), 0o644)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, loc, _ := firstAnswer(addr, "/m", deadline); loc == "/second" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("map file change not picked up\n%s", stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// BenchmarkReloadUnderLoad reloads the reference rule set (11,500 rules)
// through POST /reload while 4 keep-alive clients send requests; it
// reports reload time and the requests that failed, which must be none.
func BenchmarkReloadUnderLoad(b *testing.B) {
	file := filepath.Join(b.TempDir(), "rules.toml")
	f, _ := os.Create(file)
	rules.WriteTOML(f, rules.Reference, "127.0.0.1:0")
	f.Close()
	data, _ := os.ReadFile(file)
	data = bytes.Replace(data, []byte("[admin]\nlisten = \"off\""), []byte("[admin]\nlisten = \"127.0.0.1:0\"\n\n[access_log]\nenabled = false"), 1)
	os.WriteFile(file, data, 0o644)
	_, addr, adminAddr, stderr := serveBound(b, file)
	if _, _, err := firstAnswer(addr, rules.ExactHit, time.Now().Add(10*time.Second)); err != nil {
		b.Fatalf("%v\n%s", err, stderr)
	}
	stopLoad := keepAliveLoad(addr, rules.ExactHit, "https://example.com/new/9999", 4)
	for b.Loop() {
		resp, err := http.Post("http://"+adminAddr+"/reload", "", nil)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("reload: %v %v\n%s", resp, err, stderr)
		}
		resp.Body.Close()
	}
	ok, failed := stopLoad()
	b.ReportMetric(float64(failed), "failed-requests")
	b.ReportMetric(float64(ok)/float64(b.N), "requests/reload")
	if failed > 0 {
		b.Fatalf("%d requests failed during reloads", failed)
	}
}
