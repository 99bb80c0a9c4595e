package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// editNode is a redirectd process serving a config with [admin]
// edits_dir and named tokens, driven over its admin and traffic ports.
type editNode struct {
	t               *testing.T
	bin, dir, file  string
	addr, adminAddr string
	cmd             *exec.Cmd
	stderr          *testutil.LockedBuffer
}

// editConfig has the tokens the tests use: one per role, and an editor
// and a publisher limited to *.brand-a.com.
func editConfig(addr, adminAddr string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[server]\nlisten = %q\n\n[admin]\nlisten = %q\ntoken = \"root-token\"\nedits_dir = \"edits\"\n\n[access_log]\nenabled = false\n\n", addr, adminAddr)
	for _, tk := range []struct{ name, role, hosts string }{
		{"vera", "viewer", ""}, {"ed", "editor", ""}, {"pub", "publisher", ""}, {"ada", "admin", ""},
		{"alice", "editor", `["*.brand-a.com"]`}, {"paula", "publisher", `["*.brand-a.com"]`},
	} {
		fmt.Fprintf(&b, "[[admin.tokens]]\nname = %q\nrole = %q\ntoken_file = \"tokens/%s\"\n", tk.name, tk.role, tk.name)
		if tk.hosts != "" {
			fmt.Fprintf(&b, "hosts = %s\n", tk.hosts)
		}
		b.WriteString("\n")
	}
	b.WriteString("[[rule]]\nfrom = \"/old\"\nto = \"/x\"\n\n[[rule]]\nhost = \"www.brand-a.com\"\nfrom = \"/a\"\nto = \"/b\"\n\n" +
		"[[rule]]\nhost = \"www.brand-b.com\"\nfrom = \"/a\"\nto = \"/b\"\n\n[[rule]]\nfrom = \"/hop\"\nto = \"/x\"\n")
	return b.String()
}

func startEditNode(t *testing.T) *editNode {
	t.Helper()
	return startEditNodeWith(t, "")
}

// startEditNodeWith starts an editNode whose config has the rules of
// extra (TOML) after editConfig's.
func startEditNodeWith(t *testing.T, extra string) *editNode {
	t.Helper()
	return startEditNodeConf(t, func(addr, adminAddr string) string { return editConfig(addr, adminAddr) + extra })
}

// startEditNodeConf starts an editNode with the config conf writes for
// its two addresses.
func startEditNodeConf(t *testing.T, conf func(addr, adminAddr string) string) *editNode {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	n := &editNode{t: t, bin: buildBinary(t), dir: t.TempDir(), addr: testport.Free(t), adminAddr: testport.Free(t)}
	n.file = filepath.Join(n.dir, "r.toml")
	os.MkdirAll(filepath.Join(n.dir, "tokens"), 0o755)
	for _, name := range []string{"vera", "ed", "pub", "ada", "alice", "paula"} {
		os.WriteFile(filepath.Join(n.dir, "tokens", name), []byte(name+"-token\n"), 0o600)
	}
	os.WriteFile(n.file, []byte(conf(n.addr, n.adminAddr)), 0o644)
	n.start()
	return n
}

func (n *editNode) start() {
	n.t.Helper()
	nd := startNode(n.t, nodeConfig{File: n.file, Args: []string{"-log-format", "json"}})
	n.cmd, n.stderr = nd.cmd, nd.stderr
}

func (n *editNode) stop() {
	n.t.Helper()
	n.cmd.Process.Signal(syscall.SIGTERM)
	n.cmd.Wait()
}

// call sends a request to the admin port with token's token ("" none).
func (n *editNode) call(token, method, path, ctype string, body io.Reader) (int, string) {
	n.t.Helper()
	req, _ := http.NewRequest(method, "http://"+n.adminAddr+path, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token+"-token")
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		n.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (n *editNode) json(token, method, path string, body any, want int, into any) {
	n.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	code, got := n.call(token, method, path, "application/json", r)
	if code != want {
		n.t.Fatalf("%s %s as %s: %d %s, want %d", method, path, token, code, got, want)
	}
	if into != nil {
		if err := json.Unmarshal([]byte(got), into); err != nil {
			n.t.Fatalf("%s %s: %v in %s", method, path, err, got)
		}
	}
}

// answer asks the traffic port for host and path, in raw bytes, and
// returns the status and Location.
func (n *editNode) answer(host, path string) (int, string) {
	n.t.Helper()
	c, err := net.DialTimeout("tcp", n.addr, testutil.Patience)
	if err != nil {
		n.t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", path, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		n.t.Fatalf("%s%s: %v", host, path, err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

func (n *editNode) wantAnswer(host, path string, status int, loc string) {
	n.t.Helper()
	st, l := n.answer(host, path)
	if st != status || !strings.HasSuffix(l, loc) {
		n.t.Errorf("%s%s: %d %q, want %d %q", host, path, st, l, status, loc)
	}
}

type draftRef struct {
	ID   string `json:"id"`
	Base int    `json:"base"`
}

func (n *editNode) newDraft(token string) draftRef {
	n.t.Helper()
	var d draftRef
	n.json(token, "POST", "/drafts", nil, 201, &d)
	return d
}

// TestDraftPromoteRollback creates a draft, adds and changes entries,
// reads its diff, promotes it, sees the new answers on the traffic
// port, rolls back, sees the old ones; then a second promote from the
// same base is refused, and a restart and a SIGHUP keep the promoted
// rules.
func TestDraftPromoteRollback(t *testing.T) {
	t.Parallel()
	n := startEditNode(t)
	d := n.newDraft("pub")
	if d.ID != "d1" || d.Base != 0 {
		t.Fatalf("first draft: %+v, want d1 on base 0", d)
	}
	n.json("ed", "POST", "/drafts/d1/entries", map[string]any{"op": "add", "host": "", "from": "/new", "to": "/y", "status": 301}, 201, nil)
	n.json("ed", "POST", "/drafts/d1/entries", map[string]any{"op": "change", "from": "/old", "to": "/z", "status": 302}, 201, nil)
	n.json("ed", "POST", "/drafts/d1/entries", map[string]any{"op": "add", "from": "/loop", "to": "/loop2"}, 201, nil)
	n.json("ed", "POST", "/drafts/d1/entries", map[string]any{"op": "add", "from": "/loop2", "to": "/loop"}, 201, nil)
	n.json("ed", "POST", "/drafts/d1/entries", map[string]any{"op": "add", "from": "/chain", "to": "/hop"}, 201, nil)
	// An add then a delete of one rule in a draft leaves nothing.
	n.json("ed", "POST", "/drafts/d1/entries", map[string]any{"op": "add", "from": "/tmp", "to": "/t"}, 201, nil)
	n.json("ed", "POST", "/drafts/d1/entries", map[string]any{"op": "delete", "from": "/tmp"}, 201, nil)
	if code, body := n.call("ed", "POST", "/drafts/d1/entries", "application/json", strings.NewReader(`{"op":"delete","from":"/nothing"}`)); code != 400 || !strings.Contains(body, "no rule") {
		t.Errorf("delete of no rule: %d %s", code, body)
	}
	if code, body := n.call("ed", "POST", "/drafts/d1/entries", "application/json", strings.NewReader(`{"op":"add","from":"/q","to":"/r","stauts":301}`)); code != 400 {
		t.Errorf("a misspelt field: %d %s, want 400", code, body)
	}
	var view struct {
		Added   []map[string]any `json:"added"`
		Changed []struct {
			Old, New map[string]any
		} `json:"changed"`
		Samples  []struct{ URL, Old, New string } `json:"samples"`
		Problems []struct{ Kind, Detail string }  `json:"problems"`
		Counts   map[string]int                   `json:"counts"`
	}
	n.json("vera", "GET", "/drafts/d1", nil, 200, &view)
	if view.Counts["added"] != 4 || view.Counts["changed"] != 1 || view.Counts["removed"] != 0 {
		t.Errorf("counts: %v", view.Counts)
	}
	if len(view.Changed) != 1 || view.Changed[0].Old["to"] != "/x" || view.Changed[0].New["to"] != "/z" {
		t.Errorf("changed: %+v", view.Changed)
	}
	kinds := map[string]bool{}
	for _, p := range view.Problems {
		kinds[p.Kind] = true
	}
	if !kinds["loop"] || !kinds["chain"] {
		t.Errorf("problems: %+v, want a loop and a chain", view.Problems)
	}
	var sawSample bool
	for _, s := range view.Samples {
		if s.URL == "/old" && s.Old == "301 /x" && s.New == "302 /z" {
			sawSample = true
		}
	}
	if !sawSample {
		t.Errorf("samples: %+v", view.Samples)
	}
	n.json("vera", "GET", "/drafts/d1?limit=1&offset=1", nil, 200, &view)
	if len(view.Added) != 1 || view.Added[0]["from"] != "/loop" {
		t.Errorf("page 2 of 1: %+v", view.Added)
	}
	var list []map[string]any
	n.json("vera", "GET", "/drafts", nil, 200, &list)
	if len(list) != 1 || list[0]["entries"].(float64) != 5 || list[0]["author"] != "pub" {
		t.Errorf("GET /drafts: %+v", list)
	}

	if code, body := n.call("pub", "POST", "/drafts/d1/promote", "application/json", strings.NewReader(`{}`)); code != 400 {
		t.Errorf("promote without message: %d %s", code, body)
	}
	var promoted map[string]int
	n.json("pub", "POST", "/drafts/d1/promote", map[string]string{"message": "spring clean-up"}, 200, &promoted)
	if promoted["version"] != 1 {
		t.Errorf("promote: %v", promoted)
	}
	n.wantAnswer("localhost", "/new", 301, "/y")
	n.wantAnswer("localhost", "/old", 302, "/z")

	var versions []map[string]any
	n.json("vera", "GET", "/versions", nil, 200, &versions)
	if versions[0]["number"].(float64) != 1 || versions[0]["author"] != "pub" || versions[0]["message"] != "spring clean-up" ||
		versions[0]["counts"].(map[string]any)["added"].(float64) != 4 {
		t.Errorf("GET /versions[0]: %v", versions[0])
	}
	var rules []map[string]any
	n.json("vera", "GET", "/rules", nil, 200, &rules)
	found := false
	for _, r := range rules {
		if r["from"] == "/new" && r["changed_by"] == "ed" && r["added"] != nil && r["message"] == "spring clean-up" {
			found = true
		}
	}
	if !found {
		t.Errorf("/rules has no /new with changed_by ed and its promote's message: %v", rules)
	}

	// Two drafts on one base: the second promote is refused.
	a, b := n.newDraft("pub"), n.newDraft("pub")
	n.json("ed", "POST", "/drafts/"+a.ID+"/entries", map[string]any{"op": "add", "from": "/c", "to": "/cc"}, 201, nil)
	n.json("ed", "POST", "/drafts/"+b.ID+"/entries", map[string]any{"op": "add", "from": "/d", "to": "/dd"}, 201, nil)
	n.json("pub", "POST", "/drafts/"+a.ID+"/promote", map[string]string{"message": "c"}, 200, nil)
	code, body := n.call("pub", "POST", "/drafts/"+b.ID+"/promote", "application/json", strings.NewReader(`{"message":"d"}`))
	if code != 409 || !strings.Contains(body, "the serving version changed since this draft started (base 1, serving 2): start a new draft") {
		t.Errorf("second promote on one base: %d %s", code, body)
	}
	n.wantAnswer("localhost", "/c", 301, "/cc")

	// A draft whose rules do not build is a 422 naming the entry, and
	// the rules stay.
	bad := n.newDraft("pub")
	n.json("ed", "POST", "/drafts/"+bad.ID+"/entries", map[string]any{"op": "add", "kind": "regex", "from": "^/(broken", "to": "/x"}, 201, nil)
	code, body = n.call("pub", "POST", "/drafts/"+bad.ID+"/promote", "application/json", strings.NewReader(`{"message":"bad"}`))
	if code != 422 || !strings.Contains(body, "^/(broken") {
		t.Errorf("promote of a regex that does not compile: %d %s, want 422 naming it", code, body)
	}
	n.wantAnswer("localhost", "/c", 301, "/cc")
	n.json("pub", "DELETE", "/drafts/"+bad.ID, nil, 204, nil)

	// /versions/diff between two edited versions.
	n.json("vera", "GET", "/versions", nil, 200, &versions)
	var diff struct {
		AddedCount int `json:"added_count"`
		Added      []struct{ From string }
	}
	n.json("vera", "GET", "/versions/diff?from="+versions[1]["hash"].(string), nil, 200, &diff)
	if diff.AddedCount != 1 || diff.Added[0].From != "/c" {
		t.Errorf("diff of version 1 to 2: %+v, want /c added", diff)
	}

	// Rollback to version 1: /c is gone again, as a new version 3.
	if code, body := n.call("pub", "POST", "/versions/rollback?to=1", "", nil); code != 400 || !strings.Contains(body, "message") {
		t.Errorf("rollback without message: %d %s", code, body)
	}
	if code, body := n.call("pub", "POST", "/versions/rollback?to=1&message=undo+c", "", nil); code != 200 {
		t.Fatalf("rollback: %d %s", code, body)
	}
	n.wantAnswer("localhost", "/c", 404, "")
	n.wantAnswer("localhost", "/new", 301, "/y")

	audit, err := os.ReadFile(filepath.Join(n.dir, "edits", "audit.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(audit)), "\n")
	if err != nil || len(lines) != 3 || !strings.Contains(lines[0], `"author":"pub"`) || !strings.Contains(lines[0], `"message":"spring clean-up"`) ||
		!strings.Contains(lines[2], `"action":"rollback"`) || !strings.Contains(lines[2], `"rollback_of":1`) {
		t.Errorf("audit log (%v):\n%s", err, audit)
	}

	// A restart and a SIGHUP serve the promoted rules, and keep when
	// each last answered.
	lastOf := func(from string) string {
		var rules []map[string]any
		n.json("vera", "GET", "/rules", nil, 200, &rules)
		for _, r := range rules {
			if r["from"] == from {
				s, _ := r["last_answered"].(string)
				return s
			}
		}
		return ""
	}
	before := lastOf("/new")
	if before == "" {
		t.Errorf("/rules: /new answered, but has no last_answered")
	}
	n.stop()
	n.start()
	if after := lastOf("/new"); after != before {
		t.Errorf("last_answered of /new after a restart: %q, want %q", after, before)
	}
	n.wantAnswer("localhost", "/new", 301, "/y")
	n.wantAnswer("localhost", "/old", 302, "/z")
	n.wantAnswer("localhost", "/c", 404, "")
	// A SIGHUP reads the config again (a rule added to it) and lays
	// the stored edits over it again.
	f, _ := os.OpenFile(n.file, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n[[rule]]\nfrom = \"/from-config\"\nto = \"/cfg\"\n")
	f.Close()
	n.cmd.Process.Signal(syscall.SIGHUP)
	testutil.WaitFor(t, testutil.Patience, "the reload", func() bool { return strings.Count(n.stderr.String(), `"msg":"reloaded"`) > 0 })
	n.wantAnswer("localhost", "/from-config", 301, "/cfg")
	n.wantAnswer("localhost", "/new", 301, "/y")
	n.wantAnswer("localhost", "/old", 302, "/z")
	d = n.newDraft("pub")
	if d.Base != 3 {
		t.Errorf("a draft after the restart: base %d, want 3", d.Base)
	}
}

// TestDraftUpload uploads 10,000 CSV rows and a JSON lines body to a
// draft, promotes it, and checks answers; a bad line is named.
func TestDraftUpload(t *testing.T) {
	t.Parallel()
	n := startEditNode(t)
	d := n.newDraft("ed")
	var csv bytes.Buffer
	csv.WriteString("source,target,status\n")
	for i := range 10000 {
		fmt.Fprintf(&csv, "/u/%d,/v/%d,301\n", i, i)
	}
	code, body := n.call("ed", "POST", "/drafts/"+d.ID+"/upload", "text/csv", &csv)
	if code != 201 || !strings.Contains(body, `"entries": 10000`) {
		t.Fatalf("CSV upload: %d %s", code, body)
	}
	jl := `{"op":"add","from":"/j1","to":"/k1"}` + "\n" + `{"op":"change","from":"/old","to":"/j"}` + "\n"
	if code, body := n.call("ed", "POST", "/drafts/"+d.ID+"/upload", "application/x-ndjson", strings.NewReader(jl)); code != 201 {
		t.Fatalf("JSON lines upload: %d %s", code, body)
	}
	bad := jl + `{"op":"add","from":"no-slash","to":"/x"}` + "\n"
	if code, body := n.call("ed", "POST", "/drafts/"+d.ID+"/upload", "application/x-ndjson", strings.NewReader(bad)); code != 400 || !strings.Contains(body, "line 3") {
		t.Errorf("bad JSON line: %d %s, want 400 naming line 3", code, body)
	}
	badCSV := "/p,/q,301\n/r,/s,999\n"
	if code, body := n.call("ed", "POST", "/drafts/"+d.ID+"/upload", "text/csv", strings.NewReader(badCSV)); code != 400 || !strings.Contains(body, "line 2") {
		t.Errorf("bad CSV row: %d %s, want 400 naming line 2", code, body)
	}
	if code, _ := n.call("ed", "POST", "/drafts/"+d.ID+"/upload", "text/plain", strings.NewReader("x")); code != 400 {
		t.Errorf("text/plain upload: %d, want 400", code)
	}
	var list []map[string]any
	n.json("ed", "GET", "/drafts", nil, 200, &list)
	if list[0]["entries"].(float64) != 10002 {
		t.Errorf("entries after the bad uploads: %v, want 10002 (a bad upload adds nothing)", list[0]["entries"])
	}
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "bulk"}, 200, nil)
	n.wantAnswer("localhost", "/u/9999", 301, "/v/9999")
	n.wantAnswer("localhost", "/j1", 301, "/k1")
	n.wantAnswer("localhost", "/old", 301, "/j")

	// GET /ruleset: the archive [rules] source reads, with an ETag.
	req, _ := http.NewRequest("GET", "http://"+n.adminAddr+"/ruleset", nil)
	req.Header.Set("Authorization", "Bearer vera-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	archive, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || etag == "" {
		t.Fatalf("GET /ruleset: %d, ETag %q", resp.StatusCode, etag)
	}
	toml := untarOne(t, archive, "redirectd.toml")
	if !strings.Contains(toml, `from = '/u/9999'`) || !strings.Contains(toml, `to = '/j'`) {
		t.Errorf("redirectd.toml in /ruleset lacks the edits:\n%.500s", toml)
	}
	req.Header.Set("If-None-Match", etag)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 304 {
		t.Errorf("GET /ruleset with If-None-Match: %d, want 304", resp.StatusCode)
	}
	os.WriteFile(filepath.Join(n.dir, "set.toml"), []byte(toml), 0o644)
	if out, err := exec.Command(n.bin, "check", "-config", filepath.Join(n.dir, "set.toml")).CombinedOutput(); err != nil {
		t.Errorf("check of the /ruleset TOML: %v\n%s", err, out)
	}
}

func untarOne(t *testing.T, archive []byte, name string) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("no %s in the archive: %v", name, err)
		}
		if h.Name == name {
			b, _ := io.ReadAll(tr)
			return string(b)
		}
	}
}

// TestDraftsOnSourceNode checks that a node pulling its rules from
// [rules] source refuses edits, naming the source.
func TestDraftsOnSourceNode(t *testing.T) {
	t.Parallel()
	src := "http://" + testport.Free(t) + "/site.tar.gz" // nothing listens: the node waits
	nd := startNode(t, nodeConfig{Config: fmt.Sprintf("[server]\nlisten = \"127.0.0.1:0\"\n[admin]\nlisten = \"127.0.0.1:0\"\n[access_log]\nenabled = false\n[rules]\nsource = %q\ncache_dir = \"cache\"\n", src)})
	stderr := nd.stderr
	resp, err := http.Post("http://"+nd.adminAddr+"/drafts", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	code, body := resp.StatusCode, string(b)
	if want := "this node's rules come from " + src + "; edit them on the node that serves it"; code != 409 || !strings.Contains(body, want) {
		t.Errorf("POST /drafts on a source node: %d %q, want 409 %q\n%s", code, body, want, stderr.String())
	}
}

// TestEditedNodeAsSource runs a second node whose [rules] source is the
// edited node's GET /ruleset (with a viewer token), and checks that a
// promote on the first reaches the second.
func TestEditedNodeAsSource(t *testing.T) {
	t.Parallel()
	n := startEditNode(t)
	d := n.newDraft("pub")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "add", "from": "/fleet", "to": "/f1"}, 201, nil)
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "first"}, 200, nil)

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "header"), []byte("Authorization: Bearer vera-token\n"), 0o600)
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, []byte(fmt.Sprintf("[server]\nlisten = \"127.0.0.1:0\"\n[admin]\nlisten = \"127.0.0.1:0\"\n[access_log]\nenabled = false\n"+
		"[rules]\nsource = \"http://%s/ruleset\"\npoll = \"1s\"\nsource_header_file = \"header\"\ncache_dir = \"cache\"\n", n.adminAddr)), 0o644)
	nd := startNode(t, nodeConfig{File: file, Args: []string{"-log-format", "json"}})
	stderr := nd.stderr
	follower := &editNode{t: t, addr: nd.addr}
	answers := func(path, loc string) func() bool {
		return func() bool {
			st, l := follower.answer("localhost", path)
			return st == 301 && strings.HasSuffix(l, loc)
		}
	}
	if !testutil.Eventually(testutil.Patience, answers("/fleet", "/f1")) {
		t.Fatalf("the follower does not serve the edited node's rules:\n%s", stderr.String())
	}
	d = n.newDraft("pub")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "change", "from": "/fleet", "to": "/f2"}, 201, nil)
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "second"}, 200, nil)
	if !testutil.Eventually(testutil.Patience, answers("/fleet", "/f2")) {
		t.Fatalf("the follower does not take the second promote:\n%s", stderr.String())
	}
	follower.wantAnswer("localhost", "/old", 301, "/x") // the edited node's config rules travel too

	// A rule holding a DEL byte travels too, and so do the changes after
	// it (its archive once failed to load on every node, which then
	// refused every newer one); a rule no config can hold is refused at
	// the edit, with its reason.
	d = n.newDraft("pub")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "add", "from": "/del\x7fbyte", "to": "/d1"}, 201, nil)
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "a DEL byte"}, 200, nil)
	d = n.newDraft("pub")
	n.json("ed", "POST", "/drafts/"+d.ID+"/entries", map[string]any{"op": "add", "host": "other.example", "from": "/later", "to": "/l1"}, 201, nil)
	n.json("pub", "POST", "/drafts/"+d.ID+"/promote", map[string]string{"message": "after it"}, 200, nil)
	if !testutil.Eventually(testutil.Patience, func() bool {
		st, l := follower.answer("other.example", "/later")
		return st == 301 && strings.HasSuffix(l, "/l1")
	}) {
		t.Fatalf("the follower does not take the promotes after a rule with a DEL byte:\n%s", stderr.String())
	}
	follower.wantAnswer("localhost", "/del%7Fbyte", 301, "/d1")
	code, body := n.call("ed", "POST", "/drafts/"+d.ID+"/entries", "application/json", strings.NewReader(`{"op":"add","from":"/caf`+"\xe9"+`","to":"/c"}`))
	if code != 400 || !strings.Contains(body, "U+FFFD") {
		t.Errorf("an entry whose from is not UTF-8: %d %q, want 400 saying why", code, body)
	}
}

// TestDraftQuotas: a token may have [admin] max_drafts drafts open, and
// its drafts hold max_draft_entries entries together, however they come
// (one by one, or uploads); an upload over the quota adds nothing, and
// another token's quota is its own.
func TestDraftQuotas(t *testing.T) {
	t.Parallel()
	n := startEditNodeConf(t, func(addr, adminAddr string) string {
		return strings.Replace(editConfig(addr, adminAddr), "edits_dir = \"edits\"\n", "edits_dir = \"edits\"\nmax_drafts = 2\nmax_draft_entries = 5\n", 1)
	})
	d1, d2 := n.newDraft("ed"), n.newDraft("ed")
	if code, body := n.call("ed", "POST", "/drafts", "", nil); code != 429 || !strings.Contains(body, "max_drafts") {
		t.Errorf("a third draft: %d %q, want 429 naming max_drafts", code, body)
	}
	for i := range 3 {
		n.json("ed", "POST", "/drafts/"+d1.ID+"/entries", map[string]any{"op": "add", "from": fmt.Sprintf("/q%d", i), "to": "/x"}, 201, nil)
	}
	var csv strings.Builder
	for i := range 3 {
		fmt.Fprintf(&csv, "/u%d,/y,301\n", i)
	}
	if code, body := n.call("ed", "POST", "/drafts/"+d2.ID+"/upload", "text/csv", strings.NewReader(csv.String())); code != 429 || !strings.Contains(body, "max_draft_entries") || !strings.Contains(body, "nothing was added") {
		t.Errorf("an upload past the entries quota: %d %q, want 429", code, body)
	}
	n.json("ed", "POST", "/drafts/"+d2.ID+"/entries", map[string]any{"op": "add", "from": "/u0", "to": "/y"}, 201, nil)
	n.json("ed", "POST", "/drafts/"+d2.ID+"/entries", map[string]any{"op": "add", "from": "/u1", "to": "/y"}, 201, nil)
	if code, body := n.call("ed", "POST", "/drafts/"+d2.ID+"/entries", "application/json", strings.NewReader(`{"op":"add","from":"/u2","to":"/y"}`)); code != 429 {
		t.Errorf("a sixth entry: %d %q, want 429", code, body)
	}
	// A change of a held entry adds none; another token's quota is its own.
	n.json("ed", "POST", "/drafts/"+d2.ID+"/entries", map[string]any{"op": "add", "from": "/u1", "to": "/z"}, 201, nil)
	n.newDraft("pub")
	n.call("ed", "DELETE", "/drafts/"+d1.ID, "", nil)
	n.newDraft("ed") // room again
}
