package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// ruleOrigin is the shared source of a rule set: a real HTTP server on
// loopback serving a .tar.gz the test builds, with an ETag, answering 304
// to If-None-Match, or 503 while down.
type ruleOrigin struct {
	mu          sync.Mutex
	body        []byte
	etag        string
	down        bool
	requests    int
	notModified int
}

func (o *ruleOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.requests++
	if r.Header.Get("Authorization") != "Bearer fleet" { // [rules] source_header
		http.Error(w, "who are you", http.StatusUnauthorized)
		return
	}
	if o.down || o.body == nil {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("ETag", o.etag)
	if r.Header.Get("If-None-Match") == o.etag {
		o.notModified++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(o.body)
}

// publish puts a new rule set at the source: files as a .tar.gz.
func (o *ruleOrigin) publish(t *testing.T, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg})
		tw.Write([]byte(files[n]))
	}
	tw.Close()
	zw.Close()
	sum := sha256.Sum256(buf.Bytes())
	o.mu.Lock()
	o.body, o.etag = buf.Bytes(), `"`+hex.EncodeToString(sum[:8])+`"`
	o.mu.Unlock()
}

func (o *ruleOrigin) setDown(down bool) {
	o.mu.Lock()
	o.down = down
	o.mu.Unlock()
}

func (o *ruleOrigin) counts() (requests, notModified int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.requests, o.notModified
}

// sourceNode is a redirectd binary serving rules from a source.
type sourceNode struct {
	t               *testing.T
	bin, file       string
	addr, adminAddr string
	cmd             *exec.Cmd
	stderr          fmt.Stringer
	env             []string // added to the environment
}

func newSourceNode(t *testing.T, bin, url, cacheDir string) *sourceNode {
	n := &sourceNode{t: t, bin: bin, addr: testport.Free(t), adminAddr: testport.Free(t), file: filepath.Join(t.TempDir(), "node.toml")}
	cfg := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\naudit_log = \"audit.jsonl\"\n\n[access_log]\nenabled = false\n\n"+
		"[rules]\nsource = %q\npoll = \"1s\"\ncache_dir = %q\nsource_header = \"Authorization: Bearer fleet\"\n", n.addr, n.adminAddr, url, cacheDir)
	if err := os.WriteFile(n.file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

func (n *sourceNode) start() {
	n.t.Helper()
	nd := startNode(n.t, nodeConfig{File: n.file, Bin: n.bin, Env: n.env})
	n.cmd, n.stderr = nd.cmd, nd.stderr
}

// waitLog waits until the node's log holds text, and fails the test
// with what says otherwise and the log when it does not. The node writes
// a line beside the effect a test saw first (a metric, an answer), and
// the line reaches the test's buffer through a pipe: it can come after.
func (n *sourceNode) waitLog(text, otherwise string) {
	n.t.Helper()
	if !testutil.Eventually(testutil.Patience, func() bool { return strings.Contains(n.stderr.String(), text) }) {
		n.t.Errorf("%s:\n%s", otherwise, n.stderr)
	}
}

func (n *sourceNode) stop() {
	n.t.Helper()
	n.cmd.Process.Signal(syscall.SIGTERM)
	if err := n.cmd.Wait(); err != nil {
		n.t.Fatalf("exit after SIGTERM: %v\n%s", err, n.stderr)
	}
}

// audit returns the records of the node's audit log, failing on a line
// that does not parse.
func (n *sourceNode) audit() []auditRecord {
	n.t.Helper()
	return readAudit(n.t, filepath.Join(filepath.Dir(n.file), "audit.jsonl"))
}

// auditRecord is a line of the audit log, as a reader of it sees it.
type auditRecord struct {
	Action    string `json:"action"`
	Version   int    `json:"version"`
	Hash      string `json:"hash"`
	Author    string `json:"author"`
	Message   string `json:"message"`
	Recovered bool   `json:"recovered"`
}

// readAudit reads the audit log at name, failing on a line that does
// not parse.
func readAudit(t testing.TB, name string) []auditRecord {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []auditRecord
	for i, l := range strings.SplitAfter(string(b), "\n") {
		if l == "" {
			continue
		}
		var r auditRecord
		if !strings.HasSuffix(l, "\n") || json.Unmarshal([]byte(l), &r) != nil {
			t.Fatalf("%s line %d does not parse: %q", name, i+1, l)
		}
		out = append(out, r)
	}
	return out
}

// call makes an admin request and returns the status and body.
func (n *sourceNode) call(method, path string) (int, string) {
	n.t.Helper()
	req, _ := http.NewRequest(method, "http://"+n.adminAddr+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// answer sends GET path as raw bytes to the traffic port.
func (n *sourceNode) answer(path string) (int, string) {
	n.t.Helper()
	status, loc, err := firstAnswer(n.addr, path, time.Now().Add(2*time.Second))
	if err != nil {
		n.t.Fatalf("GET %s: %v", path, err)
	}
	return status, loc
}

// waitAnswer asks path until it is answered status with Location loc, or
// fails after within, or after minWait where within is shorter.
func (n *sourceNode) waitAnswer(path string, status int, loc string, within time.Duration) {
	n.t.Helper()
	within = max(within, minWait)
	var s int
	var l string
	if !testutil.Eventually(within, func() bool {
		s, l = n.answer(path)
		return s == status && l == loc
	}) {
		n.t.Fatalf("GET %s: %d %q after %s, want %d %q\n%s", path, s, l, within, status, loc, n.stderr)
	}
}

// minWait is the least a wait for a node gives it. A wait ends as soon
// as what it waits for comes, so a long one costs nothing when the test
// passes; a short one fails on a machine too busy to run the node in
// time, which is not what a test checks.
const minWait = 10 * time.Second

// metric returns the value of the metric line that starts with name.
func (n *sourceNode) metric(name string) float64 {
	n.t.Helper()
	_, body := n.call("GET", "/metrics")
	v, ok := testutil.Metric(body, name)
	if !ok {
		n.t.Fatalf("/metrics has no %s", name)
	}
	return v
}

func (n *sourceNode) waitMetric(name string, want float64, within time.Duration) {
	n.t.Helper()
	within = max(within, minWait)
	if !testutil.Eventually(within, func() bool { return n.metric(name) >= want }) {
		n.t.Fatalf("%s = %v after %s, want %v or more\n%s", name, n.metric(name), within, want, n.stderr)
	}
}

func (n *sourceNode) versions() []edit.Version {
	n.t.Helper()
	code, body := n.call("GET", "/versions")
	var vs []edit.Version
	if err := json.Unmarshal([]byte(body), &vs); code != 200 || err != nil {
		n.t.Fatalf("/versions: %d %v %q", code, err, body)
	}
	return vs
}

// serving returns the hash of the version serving, and whether pinned.
func (n *sourceNode) serving() (string, bool) {
	for _, v := range n.versions() {
		if v.Serving {
			return v.Hash, v.Pinned
		}
	}
	return "", false
}

// TestSourcePoll runs a node on a source and follows a rule set through
// new versions, a 304, a bad version, a diff, a rollback and its end, and
// a restart with the source down.
func TestSourcePoll(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	v1 := map[string]string{
		"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n\n[[map]]\nfile = \"maps/site.map\"\n",
		"maps/site.map":  "/c /x;\n/d /gone;\n",
	}
	origin.publish(t, v1)
	cache := t.TempDir()
	node := newSourceNode(t, buildBinary(t), srv.URL+"/redirectd/site.tar.gz", cache)
	node.start()

	// The first version serves, and a later poll is a 304.
	node.waitAnswer("/a", 301, "/one", 15*time.Second)
	if code, body := node.call("GET", "/readyz"); code != 200 {
		t.Fatalf("/readyz with rules: %d %q", code, body)
	}
	h1, _ := node.serving()
	node.waitMetric(`redirectd_rules_source_fetches_total{result="unchanged"}`, 1, 15*time.Second)
	if _, nm := origin.counts(); nm < 1 {
		t.Errorf("the source answered no 304")
	}
	if got := node.metric(fmt.Sprintf(`redirectd_rules_version_info{hash=%q}`, h1)); got != 1 {
		t.Errorf("version info of %s = %v", h1, got)
	}
	if age := node.metric("redirectd_rules_source_age_seconds"); age < 0 || age > 5 {
		t.Errorf("source age %v s, want under the poll interval and a little", age)
	}
	for range 3 {
		node.answer("/a")
	}

	// v2: /a unchanged, /b added, /c changed, /d removed.
	origin.publish(t, map[string]string{
		"redirectd.toml": "[[rule]]\nfrom = \"/b\"\nto = \"/two\"\n\n[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n\n[[map]]\nfile = \"maps/site.map\"\n",
		"maps/site.map":  "/c /y;\n",
	})
	node.waitAnswer("/b", 301, "/two", 15*time.Second)
	node.waitAnswer("/c", 301, "/y", time.Second)
	h2, _ := node.serving()
	if h2 == h1 {
		t.Fatalf("the new version has the old hash %s", h1)
	}
	// The hits of /a, unchanged, followed it into the new version.
	_, body := node.call("GET", "/rules")
	var rules []admin.RuleInfo
	json.Unmarshal([]byte(body), &rules)
	for _, r := range rules {
		if r.From == "/a" && r.Hits < 4 {
			t.Errorf("/a has %d hits after the new version, want the 4 or more it had", r.Hits)
		}
	}
	if _, body := node.call("GET", "/rules?unused=1"); strings.Contains(body, `"/a"`) {
		t.Errorf("/a is listed unused after a new version:\n%s", body)
	}

	// The diff of the two versions.
	code, body := node.call("GET", "/versions/diff?from="+h1+"&to="+h2)
	var d edit.VersionDiff
	if err := json.Unmarshal([]byte(body), &d); code != 200 || err != nil {
		t.Fatalf("/versions/diff: %d %v %q", code, err, body)
	}
	want := edit.VersionDiff{From: h1, To: h2, AddedCount: 1, RemovedCount: 1, ChangedCount: 1, Changes: edit.Changes[edit.Rule]{
		Added:   []edit.Rule{{Kind: "exact", From: "/b", To: "/two", Status: 301, Source: "redirectd.toml:1"}},
		Removed: []edit.Rule{{Kind: "exact", From: "/d", To: "/gone", Status: 301, Source: "maps/site.map:2"}},
		Changed: []edit.Change[edit.Rule]{{Old: edit.Rule{Kind: "exact", From: "/c", To: "/x", Status: 301, Source: "maps/site.map:1"},
			New: edit.Rule{Kind: "exact", From: "/c", To: "/y", Status: 301, Source: "maps/site.map:1"}}}},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("/versions/diff (-want +got):\n%s", diff)
	}

	// v3 does not load: the running rules stay, and it counts.
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/b\"\nto = \"/three\"\nstatus = 200\n"})
	node.waitMetric(`redirectd_rules_source_failures_total{reason="invalid"}`, 1, 15*time.Second)
	node.waitAnswer("/b", 301, "/two", time.Second)
	if h, _ := node.serving(); h != h2 {
		t.Errorf("serving %s after a bad version, want %s", h, h2)
	}
	node.waitLog("redirectd.toml:4: [[rule]] #1: status: 200 is not a redirect status", "the log does not say why the version was refused")

	// Roll back to v1: pinned while the source stays as it is.
	if code, body := node.call("POST", "/versions/rollback?to="+h1); code != 200 {
		t.Fatalf("rollback: %d %q", code, body)
	}
	node.waitAnswer("/b", 404, "", time.Second)
	node.waitAnswer("/c", 301, "/x", time.Second)
	reqs, _ := origin.counts()
	testutil.Eventually(minWait, func() bool { r, _ := origin.counts(); return r >= reqs+2 })
	if h, pinned := node.serving(); h != h1 || !pinned {
		t.Errorf("after two polls of an unchanged source: serving %s pinned %v, want %s pinned", h, pinned, h1)
	}
	if got := node.metric("redirectd_rules_pinned"); got != 1 {
		t.Errorf("redirectd_rules_pinned = %v, want 1", got)
	}
	// SIGHUP reloads, but keeps the pinned version.
	node.cmd.Process.Signal(syscall.SIGHUP)
	node.waitMetric(`redirectd_config_reloads_total{result="ok"}`, 4, 15*time.Second)
	if h, pinned := node.serving(); h != h1 || !pinned {
		t.Errorf("after SIGHUP: serving %s pinned %v, want %s pinned", h, pinned, h1)
	}
	// Unpin: the source's latest good version serves again.
	if code, body := node.call("POST", "/versions/unpin"); code != 200 || !strings.Contains(body, h2) {
		t.Fatalf("unpin: %d %q", code, body)
	}
	node.waitAnswer("/b", 301, "/two", time.Second)
	// The pin and the unpin are in the audit log, each with its caller
	// (the loopback admin without a token is "local").
	var pinned2 []string
	for _, r := range node.audit() {
		if r.Action == "pin" || r.Action == "unpin" {
			pinned2 = append(pinned2, r.Action+" "+r.Hash+" "+r.Author)
		}
	}
	if d := cmp.Diff([]string{"pin " + h1 + " local", "unpin " + h2 + " local"}, pinned2); d != "" {
		t.Errorf("pins in the audit log (-want +got):\n%s", d)
	}
	if code, body := node.call("POST", "/versions/unpin"); code != 409 {
		t.Errorf("unpin with nothing pinned: %d %q, want 409", code, body)
	}
	if code, body := node.call("POST", "/versions/rollback?to=000000000000"); code != 404 {
		t.Errorf("rollback to an unknown version: %d %q, want 404", code, body)
	}

	// Pinned again; a change at the source ends the pin.
	node.call("POST", "/versions/rollback?to="+h1)
	node.waitAnswer("/b", 404, "", time.Second)
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/e\"\nto = \"/four\"\n"})
	node.waitAnswer("/e", 301, "/four", 15*time.Second)
	h4, pinned := node.serving()
	if pinned {
		t.Errorf("%s is pinned after a change at the source", h4)
	}

	// Restart with the source down: the cached version serves at once.
	node.stop()
	origin.setDown(true)
	node.start()
	if s, l := node.answer("/e"); s != 301 || l != "/four" {
		t.Errorf("after a restart with the source down: %d %q, want the cached version's 301 /four\n%s", s, l, node.stderr)
	}
	if code, body := node.call("GET", "/readyz"); code != 200 {
		t.Errorf("/readyz serving the cache: %d %q", code, body)
	}
	if h, _ := node.serving(); h != h4 {
		t.Errorf("serving %s from the cache, want %s", h, h4)
	}
	node.waitMetric(`redirectd_rules_source_failures_total{reason="status"}`, 1, 15*time.Second)
	node.waitLog("the source answered 503 Service Unavailable", "the log does not say the source is down")
}

// TestSourceNotReady starts a node whose source is down and whose cache is
// empty: it answers traffic (404) but /readyz is 503 until a rule set
// loads.
func TestSourceNotReady(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	node := newSourceNode(t, buildBinary(t), srv.URL+"/site.map", t.TempDir())
	node.start()
	if code, body := node.call("GET", "/readyz"); code != 503 || !strings.Contains(body, "no rule set loaded yet") {
		t.Errorf("/readyz before any rule set: %d %q, want 503", code, body)
	}
	if s, _ := node.answer("/a"); s != 404 {
		t.Errorf("GET /a with no rules: %d, want 404", s)
	}
	if code, body := node.call("POST", "/reload"); code != 400 || !strings.Contains(body, "no rule set from [rules] source has loaded yet") {
		t.Errorf("POST /reload before any rule set: %d %q", code, body)
	}
	// A single map file at the source.
	origin.publish(t, nil)
	origin.mu.Lock()
	origin.body = []byte("/a /b;\n")
	origin.mu.Unlock()
	node.waitAnswer("/a", 301, "/b", 15*time.Second)
	if code, body := node.call("GET", "/readyz"); code != 200 {
		t.Errorf("/readyz once loaded: %d %q", code, body)
	}
	// Down again: still ready, the rules stay.
	origin.setDown(true)
	node.waitMetric(`redirectd_rules_source_failures_total{reason="status"}`, 2, 15*time.Second)
	if code, _ := node.call("GET", "/readyz"); code != 200 {
		t.Errorf("/readyz with the source down after a load: %d, want 200", code)
	}
	node.waitAnswer("/a", 301, "/b", time.Second)
}

// TestSourceDamagedCache restarts a node whose cached version was damaged
// on disk: it cannot serve it, and must fetch the source's copy again
// rather than take the source's 304 for "nothing to do".
func TestSourceDamagedCache(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n"})
	cache := t.TempDir()
	node := newSourceNode(t, buildBinary(t), srv.URL+"/site.tar.gz", cache)
	node.start()
	node.waitAnswer("/a", 301, "/one", 15*time.Second)
	h, _ := node.serving()
	node.stop()
	if err := os.WriteFile(filepath.Join(cache, "versions", h, "redirectd.toml"), []byte("[[rule]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	node.start()
	node.waitAnswer("/a", 301, "/one", 15*time.Second)
	node.waitLog("cannot serve the version in [rules] cache_dir", "the log does not say the cached version failed")
	if b, _ := os.ReadFile(filepath.Join(cache, "versions", h, "redirectd.toml")); !strings.Contains(string(b), "/one") {
		t.Errorf("the damaged copy is still in the cache: %q", b)
	}
}

// TestSourceNotifyAtStart restarts a node that serves its cached version:
// loading it goes through the reload path, which must not tell systemd
// RELOADING=1 and READY=1 before the listeners are up.
func TestSourceNotifyAtStart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/one\"\n"})
	node := newSourceNode(t, buildBinary(t), srv.URL+"/site.tar.gz", t.TempDir())
	node.start()
	node.waitAnswer("/a", 301, "/one", 15*time.Second)
	node.stop()

	sock := filepath.Join(t.TempDir(), "notify")
	conn, err := listenUnixgram(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	node.env = []string{"NOTIFY_SOCKET=" + sock}
	node.start()
	if got := readDatagrams(t, conn, 1); got[0] != "READY=1" {
		t.Fatalf("first notification %q, want READY=1", got[0])
	}
}

// TestCheckFetch: check on a node fed by a source says that it did not
// fetch the rules, rather than passing "ok: 0 rules" as the rules
// checked; -fetch fetches them and checks them as the node loads them.
func TestCheckFetch(t *testing.T) {
	t.Parallel()
	origin := &ruleOrigin{}
	srv := httptest.NewServer(origin)
	defer srv.Close()
	origin.publish(t, map[string]string{
		"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n\n[[rule]]\nfrom = \"/b\"\nto = \"/a\"\n",
	})
	node := newSourceNode(t, "", srv.URL+"/site.tar.gz", t.TempDir())
	code, out, errs := runCmd("check", "-config", node.file)
	if code != 0 || !strings.Contains(errs, "which check did not fetch") || !strings.Contains(out+errs, "ok: 0 rules") {
		t.Errorf("check without -fetch: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmd("check", "-fetch", "-config", node.file)
	if code != 1 || !strings.Contains(errs, "fetched the rules from") || !strings.Contains(out+errs, "loop") {
		t.Errorf("check -fetch of rules that loop: exit %d, want 1 and the loop\n%s%s", code, out, errs)
	}
	origin.setDown(true)
	if code, out, errs := runCmd("check", "-fetch", "-config", node.file); code != 1 || !strings.Contains(errs, "503") {
		t.Errorf("check -fetch of a source that is down: exit %d, want 1 and its status\n%s%s", code, out, errs)
	}
}
