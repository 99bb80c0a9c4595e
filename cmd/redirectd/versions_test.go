package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestVersionsLocal checks versions of a config's own rules: listed with
// their hash, not kept for rollback, and hit counts carried over a SIGHUP
// reload for the rules that did not change.
func TestVersionsLocal(t *testing.T) {
	t.Parallel()
	nd := startNode(t, nodeConfig{Config: "[server]\nlisten = \"127.0.0.1:0\"\n\n[admin]\nlisten = \"127.0.0.1:0\"\n\n[access_log]\nenabled = false\n\n" +
		"[[rule]]\nfrom = \"/keep\"\nto = \"/k\"\n\n[[rule]]\nfrom = \"/change\"\nto = \"/c1\"\n"})
	cmd, file := nd.cmd, nd.file
	node := &sourceNode{t: t, addr: nd.addr, adminAddr: nd.adminAddr, cmd: cmd, stderr: nd.stderr}
	for range 3 {
		node.answer("/keep")
		node.answer("/change")
	}
	vs := node.versions()
	if len(vs) != 1 || !vs[0].Serving || vs[0].Kept || vs[0].Rules != 2 || vs[0].Source != "file:"+file || len(vs[0].Hash) != 12 {
		t.Fatalf("/versions at start: %+v", vs)
	}
	h1 := vs[0].Hash

	body, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(body), `"/c1"`, `"/c2"`, 1)), 0o644)
	cmd.Process.Signal(syscall.SIGHUP)
	node.waitAnswer("/change", 301, "/c2", 5*time.Second)
	vs = node.versions()
	if len(vs) != 2 || vs[1].Hash != h1 || vs[0].Hash == h1 || !vs[0].Serving || vs[1].Serving {
		t.Fatalf("/versions after a reload: %+v", vs)
	}
	// /keep: 3; /change changed, so its count starts again (1:
	// waitAnswer's request that saw /c2). The counts are carried just
	// after the new rules serve, so the answer above can come before
	// them: ask until they are there.
	var got map[string]uint64
	testutil.Eventually(testutil.Patience, func() bool {
		_, rb := node.call("GET", "/rules")
		var rules []admin.RuleInfo
		json.Unmarshal([]byte(rb), &rules)
		got = map[string]uint64{}
		for _, r := range rules {
			got[r.From] = r.Hits
		}
		return got["/keep"] == 3
	})
	if got["/keep"] != 3 || got["/change"] != 1 {
		t.Errorf("hits after the reload: %v, want /keep 3 and /change 1", got)
	}
	if code, body := node.call("POST", "/versions/rollback?to="+h1); code != 409 || !strings.Contains(body, "only versions from [rules] source") {
		t.Errorf("rollback of a local version: %d %q, want 409", code, body)
	}
	if code, body := node.call("GET", fmt.Sprintf("/versions/diff?from=%s&to=%s", vs[0].Hash, vs[0].Hash)); code != 200 || !strings.Contains(body, `"added_count": 0`) {
		t.Errorf("diff of the serving version with itself: %d %q", code, body)
	}
	if code, _ := node.call("GET", "/versions/diff?from="+h1); code != 409 {
		t.Errorf("diff with a local version not kept: %d, want 409", code)
	}
	if code, body := node.call("POST", "/versions/unpin"); code != 409 {
		t.Errorf("unpin without a source: %d %q, want 409", code, body)
	}
}

// TestVersionsLocalFiles checks the hash of a config's own version once
// it is computed after the listeners serve: /versions, asked as soon as
// the node serves, waits for it, and it is what it was when computed
// before serving: SHA-256 of each file's path, a NUL and its bytes, the
// config first, then the map and CSV files in the config's order.
func TestVersionsLocalFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"b.map": "/b1 /x;\n/b2 /y;\n", "c.csv": "source,target,status\n/c,/cc,301\n", "a.map": "/a /z;\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "r.toml")
	conf := "[server]\nlisten = \"127.0.0.1:0\"\n\n[admin]\nlisten = \"127.0.0.1:0\"\n\n[access_log]\nenabled = false\n\n" +
		"[[map]]\nfile = \"b.map\"\n\n[[rule]]\nfrom = \"/r\"\nto = \"/rr\"\n\n[[csv]]\nfile = \"c.csv\"\n\n[[map]]\nfile = \"a.map\"\n"
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, f := range []string{file, filepath.Join(dir, "b.map"), filepath.Join(dir, "c.csv"), filepath.Join(dir, "a.map")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(f + "\x00"))
		h.Write(b)
	}
	want := hex.EncodeToString(h.Sum(nil))[:12]

	nd := startNode(t, nodeConfig{File: file})
	node := &sourceNode{t: t, addr: nd.addr, adminAddr: nd.adminAddr, cmd: nd.cmd, stderr: nd.stderr}
	vs := node.versions()
	if len(vs) != 1 || !vs[0].Serving || vs[0].Hash != want || vs[0].Rules != 5 {
		t.Fatalf("/versions at start: %+v, want one serving version %s of 5 rules", vs, want)
	}
	// A reload of the same files is the same version.
	nd.cmd.Process.Signal(syscall.SIGHUP)
	testutil.Eventually(testutil.Patience, func() bool { return strings.Contains(nd.stderr.String(), "reloaded") })
	if vs := node.versions(); len(vs) != 1 || vs[0].Hash != want {
		t.Errorf("/versions after a reload of the same files: %+v, want %s", vs, want)
	}
}
