package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/testport"
)

// TestMissesEndToEnd runs the binary with two event loops, sends requests
// that match no rule (and one that does) on loopback over several
// connections, and compares GET /misses on the admin port with the
// misses sent: JSON, ?host=, ?limit=, ?format=map and the gauges. The
// map it writes, loaded as a [[map]], is refused by check until filled.
func TestMissesEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	addr, adminAddr := testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "r.toml")
	os.WriteFile(file, fmt.Appendf(nil, "[server]\nlisten = %q\nevent_loops = 2\n\n[admin]\nlisten = %q\n\n[access_log]\nenabled = false\n\n"+
		"[misses]\ncapacity = 64\n\n[[rule]]\nfrom = \"/hit\"\nto = \"/there\"\n", addr, adminAddr), 0o644)
	startNode(t, nodeConfig{File: file, Bin: bin})
	if status, _, err := firstAnswer(addr, "/hit", time.Now().Add(10*time.Second)); err != nil || status != 301 {
		t.Fatalf("first answer: %d %v", status, err)
	}
	start := time.Now()
	sent := []struct {
		host, target string
		times        int
	}{
		{"a.test", "/old/page?utm=1", 5}, // the query is not part of the path counted
		{"A.Test:8080", "/old/other", 3}, // host without case and port
		{"b.test", "/gone", 1},
		{"a.test", "/hit", 4}, // a redirect: not a miss
	}
	for _, s := range sent {
		for range s.times {
			status, _ := rawAnswer(t, addr, s.host, s.target)
			if want := map[bool]int{true: 301, false: 404}[s.target == "/hit"]; status != want {
				t.Fatalf("%s %s: status %d, want %d", s.host, s.target, status, want)
			}
		}
	}
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + adminAddr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	list := func(path string) []admin.MissInfo {
		code, body := get(path)
		var got []admin.MissInfo
		if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
			t.Fatalf("GET %s: %d %v %q", path, code, err, body)
		}
		for _, m := range got {
			if m.FirstSeen.Before(start.Add(-2*time.Second)) || m.LastSeen.Before(m.FirstSeen) || m.LastSeen.After(time.Now().Add(2*time.Second)) {
				t.Errorf("GET %s: %s%s seen from %v to %v, not within the test", path, m.Host, m.Path, m.FirstSeen, m.LastSeen)
			}
		}
		return got
	}
	noTimes := cmpopts.IgnoreFields(admin.MissInfo{}, "FirstSeen", "LastSeen")
	all := []admin.MissInfo{
		{Host: "a.test", Path: "/old/page", Count: 5},
		{Host: "a.test", Path: "/old/other", Count: 3},
		{Host: "b.test", Path: "/gone", Count: 1},
	}
	if d := cmp.Diff(all, list("/misses"), noTimes); d != "" {
		t.Errorf("/misses (-want +got):\n%s", d)
	}
	if d := cmp.Diff(all[2:], list("/misses?host=B.test"), noTimes); d != "" {
		t.Errorf("/misses?host=B.test (-want +got):\n%s", d)
	}
	if d := cmp.Diff(all[:1], list("/misses?limit=1"), noTimes); d != "" {
		t.Errorf("/misses?limit=1 (-want +got):\n%s", d)
	}
	for _, bad := range []string{"/misses?limit=x", "/misses?limit=-1", "/misses?format=xml"} {
		if code, body := get(bad); code != 400 {
			t.Errorf("GET %s: %d %q, want 400", bad, code, body)
		}
	}
	// Each loop tracks what it saw: a path seen on both loops fills a
	// slot in each, so 3 paths take 3 to 6 slots.
	_, metrics := get("/metrics")
	var tracked int
	if i := strings.Index(metrics, "\nredirectd_misses_tracked "); i >= 0 {
		fmt.Sscan(metrics[i+len("\nredirectd_misses_tracked "):], &tracked)
	}
	if tracked < 3 || tracked > 6 || !strings.Contains(metrics, "\nredirectd_misses_error_bound 0\n") {
		t.Errorf("/metrics: redirectd_misses_tracked %d (want 3 to 6), or no redirectd_misses_error_bound 0", tracked)
	}

	code, m := get("/misses?format=map&host=a.test")
	if code != 200 || !strings.Contains(m, "\n/old/page ;\n") || !strings.Contains(m, "\n/old/other ;\n") || strings.Contains(m, "/gone") ||
		!strings.Contains(m, `# host "a.test": use these entries in a [[map]] with host = "a.test"`) {
		t.Fatalf("/misses?format=map&host=a.test: %d\n%s", code, m)
	}
	// The map as written is refused, naming the entry; filled in, it loads.
	os.WriteFile(filepath.Join(dir, "missing.map"), []byte(m), 0o644)
	cfg := filepath.Join(dir, "fill.toml")
	os.WriteFile(cfg, []byte("[[map]]\nfile = \"missing.map\"\nhost = \"a.test\"\n"), 0o644)
	code, _, errs := runCmd("check", "-config", cfg)
	if code != 1 || !strings.Contains(errs, "missing.map:") || !strings.Contains(errs, `the entry "/old/page" has no target`) {
		t.Errorf("check of the unfilled map: exit %d\n%s", code, errs)
	}
	filled := strings.NewReplacer("/old/page ;", "/old/page /new/page;", "/old/other ;", "/old/other /new/other;").Replace(m)
	os.WriteFile(filepath.Join(dir, "missing.map"), []byte(filled), 0o644)
	if code, out, errs := runCmd("check", "-config", cfg); code != 0 {
		t.Errorf("check of the filled map: exit %d\n%s%s", code, out, errs)
	}
}

// TestMissesOff checks that capacity = 0 turns counting off and /misses
// says so.
func TestMissesOff(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	addr, adminAddr := testport.Free(t), testport.Free(t)
	file := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, fmt.Appendf(nil, "[server]\nlisten = %q\n[admin]\nlisten = %q\n[access_log]\nenabled = false\n[misses]\ncapacity = 0\n", addr, adminAddr), 0o644)
	startNode(t, nodeConfig{File: file, Bin: bin})
	if status, _, err := firstAnswer(addr, "/x", time.Now().Add(10*time.Second)); err != nil || status != 404 {
		t.Fatalf("first answer: %d %v", status, err)
	}
	resp, err := http.Get("http://" + adminAddr + "/misses")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(body), "[misses] capacity") {
		t.Errorf("/misses with capacity 0: %d %q", resp.StatusCode, body)
	}
}
