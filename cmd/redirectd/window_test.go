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

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

const windowConfig = `
[[rule]]
from = "/sale"
to = "/winter-sale"
status = 302
active = { from = 2026-12-01T00:00:00Z, until = 2027-01-07T00:00:00Z }

[[rule]]
from = "/sale"
to = "/sale-over"

[[rule]]
from = "/try"
to = "/tried"
mode = "shadow"
`

// TestExplainAt checks that explain -at answers as of the time given, and
// names the shadow rule that would have answered.
func TestExplainAt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, []byte(windowConfig), 0o644)
	const window = "active from 2026-12-01T00:00:00Z until 2027-01-07T00:00:00Z"
	for _, tc := range []struct {
		at, url string
		want    []string
	}{
		// The windowed rule, tried first, is named with its window and
		// why it does not answer.
		{"2026-11-30T23:59:59Z", "/sale", []string{"r.toml:8 (exact \"/sale\")", "location: /sale-over",
			"near:     " + file + ":2 (exact \"/sale\", " + window + ") matches this path but is " + window + "; it is now 2026-11-30T23:59:59Z"}},
		{"2026-12-01T00:00:00Z", "/sale", []string{"r.toml:2 (exact \"/sale\", " + window + ")", "status:   302", "location: /winter-sale"}},
		{"2027-01-06T23:59:59+01:00", "/sale", []string{"r.toml:2 (exact \"/sale\", " + window + ")", "location: /winter-sale"}},
		{"2027-01-07T00:00:00Z", "/sale", []string{"r.toml:8 (exact \"/sale\")", "location: /sale-over"}},
		{"", "/try", []string{"no rule matches", "shadow:   " + file + ":12 (exact \"/try\") would answer 301 /tried"}},
	} {
		args := []string{"explain", "-config", file, tc.url}
		if tc.at != "" {
			args = []string{"explain", "-config", file, "-at", tc.at, tc.url}
		}
		code, out, errs := runCmd(args...)
		if code != 0 {
			t.Fatalf("explain -at %s %s: exit %d: %s", tc.at, tc.url, code, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("explain -at %s %s:\n%s\nlacks %q", tc.at, tc.url, out, w)
			}
		}
	}
	code, _, errs := runCmd("explain", "-config", file, "-at", "2026-12-01 00:00", "/sale")
	if code != 2 || !strings.Contains(errs, `-at "2026-12-01 00:00" is not an RFC 3339 time`) {
		t.Errorf("explain with a bad -at: exit %d, stderr %q", code, errs)
	}
}

// TestCheckWindowOver checks that check warns of a window already over,
// without failing, and refuses one whose from is after its until.
func TestCheckWindowOver(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.toml")
	os.WriteFile(file, []byte("[[rule]]\nfrom = \"/old-sale\"\nto = \"/x\"\nactive = { until = 2020-01-01T00:00:00Z }\n"), 0o644)
	code, out, errs := runCmd("check", "-config", file)
	if code != 0 || !strings.Contains(errs, file+":1: warning: the rule's window ended at 2020-01-01T00:00:00Z") {
		t.Errorf("check of an expired window: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	os.WriteFile(file, []byte("[[rule]]\nfrom = \"/a\"\nto = \"/x\"\nactive = { from = 2027-01-01T00:00:00Z, until = 2026-01-01T00:00:00Z }\n"), 0o644)
	code, _, errs = runCmd("check", "-config", file)
	if code != 1 || !strings.Contains(errs, file+":4: [[rule]] #1: active: from 2027-01-01T00:00:00Z is not before until 2026-01-01T00:00:00Z") {
		t.Errorf("check of a window that ends before it starts: exit %d, stderr %q", code, errs)
	}
}

// TestShadowMapBinary runs the real binary with a map in shadow mode: its
// requests get the answer they would get without it, the access log names
// the shadow rule and its would-be Location, and /rules counts its hits.
func TestShadowMapBinary(t *testing.T) {
	t.Parallel()
	addr, adminAddr := testport.Free(t), testport.Free(t)
	dir := t.TempDir()
	file, logFile := filepath.Join(dir, "r.toml"), filepath.Join(dir, "access.log")
	os.WriteFile(filepath.Join(dir, "new.map"), []byte("/old-page /new-page;\n/live /shadow-live;\n"), 0o644)
	cfg := fmt.Sprintf("[server]\nlisten = %q\n\n[admin]\nlisten = %q\n\n[access_log]\nenabled = true\npath = %q\nformat = \"json\"\n\n"+
		"[[map]]\nfile = \"new.map\"\nmode = \"shadow\"\n\n[[rule]]\nfrom = \"/live\"\nto = \"/live-answer\"\n", addr, adminAddr, logFile)
	os.WriteFile(file, []byte(cfg), 0o644)
	nd := startNode(t, nodeConfig{File: file})
	stderr := nd.stderr
	if status, loc, err := firstAnswer(addr, "/live", time.Now().Add(10*time.Second)); err != nil || status != 301 || loc != "/live-answer" {
		t.Fatalf("/live: %d %q %v\n%s", status, loc, err, stderr.String())
	}
	if status, loc, err := firstAnswer(addr, "/old-page", time.Now().Add(time.Second)); err != nil || status != 404 || loc != "" {
		t.Errorf("/old-page: %d %q %v, want 404: the map is in shadow mode", status, loc, err)
	}

	type line struct {
		Target, Rule, ShadowRule, ShadowLocation string
	}
	var got []line
	testutil.Eventually(testutil.Patience, func() bool {
		data, _ := os.ReadFile(logFile)
		got = got[:0]
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e struct {
				Target         string `json:"target"`
				Rule           string `json:"rule"`
				ShadowRule     string `json:"shadow_rule"`
				ShadowLocation string `json:"shadow_location"`
			}
			if json.Unmarshal([]byte(l), &e) == nil {
				got = append(got, line{e.Target, e.Rule, e.ShadowRule, e.ShadowLocation})
			}
		}
		return len(got) >= 2
	})
	mapFile := filepath.Join(dir, "new.map")
	want := []line{
		{"/live", file + ":16", mapFile + ":2", "/shadow-live"},
		{"/old-page", "", mapFile + ":1", "/new-page"},
	}
	if len(got) == 2 && got[0].Target != "/live" {
		got[0], got[1] = got[1], got[0] // two loops may hand their lines over in either order
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("access log (-want +got):\n%s", diff)
	}

	resp, err := http.Get("http://" + adminAddr + "/rules")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	type info struct {
		From       string `json:"from"`
		Mode       string `json:"mode"`
		Hits       uint64 `json:"hits"`
		ShadowHits uint64 `json:"shadow_hits"`
	}
	var rules []info
	if err := json.Unmarshal(body, &rules); err != nil {
		t.Fatalf("/rules: %v\n%s", err, body)
	}
	wantRules := []info{{"/old-page", "shadow", 0, 1}, {"/live", "shadow", 0, 1}, {"/live", "", 1, 0}}
	if diff := cmp.Diff(wantRules, rules); diff != "" {
		t.Errorf("/rules (-want +got):\n%s", diff)
	}
}
