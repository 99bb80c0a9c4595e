package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/benchmarks/rules"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

const exampleFile = "example/redirectd.toml"

func runCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheck(t *testing.T) {
	code, out, errs := runCmd("check", "-config", exampleFile)
	if code != 0 || !strings.Contains(out, "ok: 8 rules (5 exact, 1 prefix, 2 regex)") {
		t.Fatalf("check: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

func TestCheckBadConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(file, []byte("[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nstatus = 200\n"), 0o644)
	code, _, errs := runCmd("check", "-config", file)
	if code != 1 || !strings.Contains(errs, file+":4: [[rule]] #1: status: 200 is not a redirect status") {
		t.Fatalf("check of a bad config: exit %d, stderr %q", code, errs)
	}
}

func TestExplain(t *testing.T) {
	tests := []struct {
		url  string
		want []string
	}{
		{"http://example.org/blog/12/hello-world?x=1", []string{"example/redirectd.toml:28 (regex", "status:   308", "location: https://example.com/posts/12/hello-world?x=1"}},
		{"/old?ref=x&utm_source=newsletter", []string{"example/redirectd.toml:15 (exact \"/old\"", "status:   302", "location: https://example.com/new/from-newsletter\n"}},
		{"/old?utm_source=newsletter", []string{"example/redirectd.toml:8 (exact \"/old\"", "status:   301", "location: https://example.com/new?utm_source=newsletter\n"}},
		{"/docs/a", []string{"example/redirectd.toml:22 (prefix \"/docs/\")", "status:   302", "location: https://docs.example.com/a"}},
		{"http://shop.example.com/only-here", []string{"(exact \"/only-here\", host \"shop.example.com\")", "status:   307"}},
		{"/p/42", []string{"example/example.map:4 (regex", "location: https://example.com/products/42"}},
		{"/about?x=1", []string{"example/example.map:2 (exact \"/about\")", "status:   301", "location: https://example.com/company/about?x=1"}},
		{"/none", []string{"no rule matches host \"\" path \"/none\": the answer is 404, or the upstream's when one is set"}},
	}
	for _, tt := range tests {
		code, out, errs := runCmd("explain", "-config", exampleFile, tt.url)
		if code != 0 {
			t.Fatalf("explain %s: exit %d: %s", tt.url, code, errs)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("explain %s:\n%s\nlacks %q", tt.url, out, w)
			}
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"nope"}, {"check"}, {"explain", "-config", exampleFile}} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, out, _ := runCmd("version"); code != 0 || !strings.HasPrefix(out, "redirectd ") {
		t.Errorf("version: %d %q", code, out)
	}
}

// firstAnswer polls addr with a GET of path until it answers or the
// deadline passes, and returns the answer's status and Location.
func firstAnswer(addr, path string, deadline time.Time) (int, string, error) {
	var c net.Conn
	var err error
	// Every millisecond: BenchmarkStartup times the first answer with it.
	if !testutil.EventuallyEvery(time.Until(deadline), time.Millisecond, func() bool {
		c, err = net.Dial("tcp", addr)
		return err == nil
	}) {
		return 0, "", err
	}
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", path)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	c.Close()
	if err != nil {
		return 0, "", err
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location"), nil
}

// TestServeBinary runs the built binary on a config, checks its answers,
// reloads it with SIGHUP, and stops it with SIGTERM.
func TestServeBinary(t *testing.T) {
	t.Parallel()
	addr := testport.Free(t)
	file := filepath.Join(t.TempDir(), "r.toml")
	write := func(to string) {
		cfg := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = \"127.0.0.1:0\"\n\n[[rule]]\nfrom = \"/a\"\nto = %q\n", addr, to)
		if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("/first")
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	status, loc, err := firstAnswer(addr, "/a", time.Now().Add(10*time.Second))
	if err != nil || status != 301 || loc != "/first" {
		t.Fatalf("first answer: %d %q %v\n%s", status, loc, err, stderr.String())
	}
	write("/second")
	cmd.Process.Signal(syscall.SIGHUP)
	if !testutil.Eventually(testutil.Patience, func() bool {
		_, loc, _ = firstAnswer(addr, "/a", time.Now().Add(2*time.Second))
		return loc == "/second"
	}) {
		t.Fatalf("after SIGHUP Location is %q\n%s", loc, stderr.String())
	}
	// A broken config is refused and the rules in use keep serving.
	os.WriteFile(file, []byte("[[rule]]\nfrom = \"/a\"\n"), 0o644)
	cmd.Process.Signal(syscall.SIGHUP)
	testutil.WaitFor(t, testutil.Patience, "the failed reload logged", func() bool {
		return strings.Contains(stderr.String(), "reload failed")
	})
	if _, loc, _ = firstAnswer(addr, "/a", time.Now().Add(time.Second)); loc != "/second" {
		t.Fatalf("after a failed reload Location is %q", loc)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "reload failed") || !strings.Contains(stderr.String(), "to: missing") {
		t.Errorf("failed reload not logged:\n%s", stderr.String())
	}
}

// BenchmarkStartup measures how long `redirectd serve` takes, with the
// reference rule set (11,500 rules), from launch to its first correct
// answer (target: 250 ms).
func BenchmarkStartup(b *testing.B) {
	bin := buildBinary(b)
	addr := testport.Free(b)
	file := filepath.Join(b.TempDir(), "rules.toml")
	f, _ := os.Create(file)
	if err := rules.WriteTOML(f, rules.Reference, addr); err != nil {
		b.Fatal(err)
	}
	f.Close()
	for b.Loop() {
		start := time.Now()
		cmd := exec.Command(bin, "serve", "-config", file)
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		status, loc, err := firstAnswer(addr, rules.ExactHit, start.Add(10*time.Second))
		took := time.Since(start)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if err != nil || status != 301 || loc != "https://example.com/new/9999" {
			b.Fatalf("first answer: %d %q %v", status, loc, err)
		}
		b.ReportMetric(float64(took.Microseconds())/1000, "ms-to-first-answer")
	}
}

// TestServeBinaryUpstream runs the binary with an [upstream] and checks
// that a miss is answered by the upstream and a hit still redirects.
func TestServeBinaryUpstream(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "origin saw %s %s", r.Method, r.URL.RequestURI())
	}))
	defer origin.Close()
	addr := testport.Free(t)
	file := filepath.Join(t.TempDir(), "r.toml")
	cfg := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = \"off\"\n\n[upstream]\nservers = [%q]\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n",
		addr, origin.Listener.Addr().String())
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	nd := startNode(t, nodeConfig{File: file})
	cmd, stderr := nd.cmd, nd.stderr
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	if status, loc, err := firstAnswer(addr, "/a", time.Now().Add(10*time.Second)); err != nil || status != 301 || loc != "/b" {
		t.Fatalf("hit: %d %q %v\n%s", status, loc, err, stderr.String())
	}
	resp, err := http.Get("http://" + addr + "/elsewhere?q=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "origin saw GET /elsewhere?q=1" {
		t.Fatalf("miss: %d %q", resp.StatusCode, body)
	}
}

var sigTERM = syscall.SIGTERM

func listenUnixgram(path string) (*net.UnixConn, error) {
	return net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
}

// readDatagrams reads n notify datagrams, failing after 10s.
func readDatagrams(t *testing.T, c *net.UnixConn, n int) []string {
	t.Helper()
	var out []string
	buf := make([]byte, 4096)
	c.SetReadDeadline(time.Now().Add(testutil.Patience))
	for len(out) < n {
		m, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %v: %v", out, err)
		}
		out = append(out, string(buf[:m]))
	}
	return out
}

// TestImportCSV converts a CSV and checks the config it writes serves the
// same redirects.
func TestImportCSV(t *testing.T) {
	dir := t.TempDir()
	csvFile := filepath.Join(dir, "bulk.csv")
	os.WriteFile(csvFile, []byte("source,target,status,preserve_query,include_subdomains,subpath_matching\n"+
		"/old,https://example.com/new,301\nexample.com/docs,https://docs.example.com,302,false,true,true\n"), 0o644)
	out := filepath.Join(dir, "imported.toml")
	code, _, errs := runCmd("import", "csv", "-o", out, csvFile)
	if code != 0 || !strings.Contains(errs, "wrote "+out+": 3 rules\n       1  exact\n       2  prefix\n") {
		t.Fatalf("import: exit %d, %s", code, errs)
	}
	for url, want := range map[string]string{
		"/old?x=1":                        "location: https://example.com/new?x=1",
		"http://a.example.com/docs/g?q=1": "location: https://docs.example.com/g\n",
		"http://example.com/docs":         "location: https://docs.example.com/\n",
	} {
		code, stdout, errs := runCmd("explain", "-config", out, url)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("explain %s on the imported config: %d %q %q, want %q", url, code, stdout, errs, want)
		}
	}
	if code, _, errs := runCmd("import", "csv", filepath.Join(dir, "missing.csv")); code != 1 || errs == "" {
		t.Errorf("import of a missing file: %d %q", code, errs)
	}
}

// TestCheckDuplicates checks that duplicate exact rules are refused with
// both places named, within a (packed) map file and between a [[rule]]
// and a map file.
func TestCheckDuplicates(t *testing.T) {
	dir := t.TempDir()
	file, mapFile := filepath.Join(dir, "r.toml"), filepath.Join(dir, "r.map")
	os.WriteFile(file, []byte("[[rule]]\nfrom = \"/b\"\nto = \"/x\"\n\n[[map]]\nfile = \"r.map\"\n"), 0o644)
	os.WriteFile(mapFile, []byte("/a /1;\n/b /2;\n/c /3;\n/a /4;\n"), 0o644)
	code, _, errs := runCmd("check", "-config", file)
	for _, want := range []string{
		mapFile + `:2: from: duplicate exact rule for "/b" (first defined at ` + file + ":1)",
		mapFile + `:4: from: duplicate exact rule for "/a" (first defined at ` + mapFile + ":1)",
	} {
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("check: exit %d, stderr %q lacks %q", code, errs, want)
		}
	}
}

// TestCheckFindings runs check on a map with a chain and a loop: text and
// JSON reports, exit 1 for the loop, and -fix-chains writing the flattened
// map.
func TestCheckFindings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "r.toml")
	mapFile := filepath.Join(dir, "r.map")
	os.WriteFile(file, []byte("[[map]]\nfile = \"r.map\"\n"), 0o644)
	os.WriteFile(mapFile, []byte("/a /b;\n/b /c;\n/x /y;\n/y /x;\n"), 0o644)
	code, out, errs := runCmd("check", "-config", file)
	if code != 1 || !strings.Contains(errs, mapFile+":1: warning: redirect chain: /a") ||
		!strings.Contains(errs, mapFile+":3: error: redirect loop: /x") || !strings.Contains(out, "2 errors") {
		t.Fatalf("check: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	code, out, _ = runCmd("check", "-format", "json", "-config", file)
	var rep struct {
		OK       bool `json:"ok"`
		Findings []struct {
			Kind  string `json:"kind"`
			Final string `json:"final"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 || rep.OK || len(rep.Findings) != 3 {
		t.Fatalf("check -format json: exit %d, %v\n%s", code, err, out)
	}
	// -json, the old spelling, prints the same (but for the time taken).
	c, o, _ := runCmd("check", "-json", "-config", file)
	var a, b map[string]any
	json.Unmarshal([]byte(out), &a)
	json.Unmarshal([]byte(o), &b)
	delete(a, "load_ms")
	delete(b, "load_ms")
	if diff := cmp.Diff(a, b); c != code || diff != "" {
		t.Errorf("check -json: exit %d, want %d; -format json -> -json:\n%s", c, code, diff)
	}
	// Without the loop, -fix-chains flattens the chain.
	os.WriteFile(mapFile, []byte("/a /b;\n/b /c;\n\"/with space\" /z;\n"), 0o644)
	if code, _, errs = runCmd("check", "-fix-chains", "-config", file); code != 0 {
		t.Fatalf("check -fix-chains: exit %d %s", code, errs)
	}
	fixed, err := os.ReadFile(mapFile + ".fixed")
	if err != nil || !strings.Contains(string(fixed), "/a /c;\n/b /c;\n\"/with space\" /z;\n") {
		t.Fatalf("fixed map: %v\n%s", err, fixed)
	}
}
