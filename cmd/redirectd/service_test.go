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
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/internal/testutil"
)

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
// is called; that function returns the requests answered and failed. It
// returns once each client has had its first answer (or failed), so that
// what the test does next happens under the load.
func keepAliveLoad(addr, path, location string, n int) func() (ok, failed int64) {
	var stop atomic.Bool
	var answered, failures atomic.Int64
	var wg, first sync.WaitGroup
	for range n {
		wg.Add(1)
		first.Add(1)
		go func() {
			defer wg.Done()
			var once sync.Once
			defer once.Do(first.Done)
			c, err := net.Dial("tcp", addr)
			if err != nil {
				failures.Add(1)
				return
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for ; !stop.Load(); once.Do(first.Done) {
				c.SetDeadline(time.Now().Add(testutil.Patience))
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
	first.Wait()
	return func() (int64, int64) {
		stop.Store(true)
		wg.Wait()
		return answered.Load(), failures.Load()
	}
}

// TestReloadUnderLoad reloads 50 times in a row while clients keep sending
// requests on keep-alive connections: none may fail or see a wrong answer.
func TestReloadUnderLoad(t *testing.T) {
	t.Parallel()
	n := startNode(t, nodeConfig{Config: "[server]\nlisten = \"127.0.0.1:0\"\n\n[admin]\nlisten = \"127.0.0.1:0\"\n\n[access_log]\nenabled = false\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"})
	stopLoad := keepAliveLoad(n.addr, "/a", "/b", 4)
	for i := range 50 {
		resp, err := http.Post("http://"+n.adminAddr+"/reload", "", nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("reload %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	ok, failed := stopLoad()
	if failed > 0 || ok == 0 {
		t.Fatalf("%d requests answered, %d failed across 50 reloads\n%s", ok, failed, n.stderr)
	}
	t.Logf("%d requests answered across 50 reloads", ok)
}

// TestGracefulShutdown stops the server with SIGTERM while a forwarded
// request is in flight and an idle keep-alive connection is open: /readyz
// turns 503 and the idle connection is closed while the request is still
// with the upstream, which answers only then; the request is answered
// and the process exits 0, so the drain ended before shutdown_timeout
// (a drain cut short by it exits 1).
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		io.WriteString(w, "slow answer")
	}))
	defer origin.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	n := startNode(t, nodeConfig{Config: "[server]\nlisten = \"127.0.0.1:0\"\nshutdown_timeout = \"1m\"\n\n[admin]\nlisten = \"127.0.0.1:0\"\n\n[upstream]\nservers = [\"" +
		origin.Listener.Addr().String() + "\"]\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"})

	idle, err := net.Dial("tcp", n.addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(idle, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
	idleR := bufio.NewReader(idle)
	if resp, err := http.ReadResponse(idleR, nil); err != nil || resp.StatusCode != 301 {
		t.Fatalf("idle connection's request: %v %v", resp, err)
	}

	slow, err := net.Dial("tcp", n.addr)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(slow, "GET /forwarded HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatalf("the request never reached the upstream\n%s", n.stderr)
	}
	n.signal(syscall.SIGTERM)

	testutil.WaitFor(t, testutil.Patience, "/readyz 503 while draining", func() bool {
		resp, err := http.Get("http://" + n.adminAddr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 503
	})
	idle.SetReadDeadline(time.Now().Add(testutil.Patience))
	if _, err := idleR.ReadByte(); err != io.EOF {
		t.Errorf("idle keep-alive connection not closed by the drain: %v", err)
	}
	close(release)
	slow.SetReadDeadline(time.Now().Add(testutil.Patience))
	resp, err := http.ReadResponse(bufio.NewReader(slow), nil)
	if err != nil {
		t.Fatalf("in-flight request lost: %v\n%s", err, n.stderr)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "slow answer" {
		t.Fatalf("in-flight request: %d %q", resp.StatusCode, body)
	}
	if err := n.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, n.stderr)
	}
}

// TestWatchReload checks [rules] watch: editing a map file reloads the
// rules without a signal.
func TestWatchReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mapFile := filepath.Join(dir, "r.map")
	os.WriteFile(mapFile, []byte("/m /first;\n"), 0o644)
	n := startNode(t, nodeConfig{Config: "[server]\nlisten = \"127.0.0.1:0\"\n\n[admin]\nlisten = \"127.0.0.1:0\"\n\n[rules]\nwatch = true\nwatch_interval = \"100ms\"\n\n" +
		"[[map]]\nfile = " + fmt.Sprintf("%q", mapFile) + "\n"})
	os.WriteFile(mapFile, []byte("/m /second;\n"), 0o644)
	if !testutil.Eventually(testutil.Patience, func() bool {
		_, loc, _ := firstAnswer(n.addr, "/m", time.Now().Add(time.Second))
		return loc == "/second"
	}) {
		t.Fatalf("map file change not picked up\n%s", n.stderr)
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
	n := startNode(b, nodeConfig{File: file})
	addr, adminAddr, stderr := n.addr, n.adminAddr, n.stderr
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
