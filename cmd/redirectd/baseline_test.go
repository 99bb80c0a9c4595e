package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/baseline"
)

// testBaselineBinary compares the two configs of testdata/testcmd with
// the built binary: a rule added, removed and changed each, map entries
// among them, and the sampled URLs whose answer changes.
func testBaselineBinary(t *testing.T, bin string) {
	code, out, errs := runInTestcmd(t, bin, "check", "-baseline", "baseline-old.toml", "-config", "baseline-new.toml")
	if code != 1 || errs != "" {
		t.Errorf("exit %d, stderr %q; want 1 (answers change) and nothing", code, errs)
	}
	golden(t, "baseline.golden", out)

	code, out, _ = runInTestcmd(t, bin, "check", "-baseline", "baseline-old.toml", "-config", "baseline-new.toml", "-format", "json")
	if code != 1 {
		t.Errorf("-format json: exit %d, want 1", code)
	}
	var rep baseline.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("-format json is not JSON: %v\n%s", err, out)
	}
	golden(t, "baseline.json.golden", out)

	code, out, _ = runInTestcmd(t, bin, "check", "-config", "baseline-old.toml", "-baseline", "baseline-old.toml")
	if code != 0 || !strings.HasSuffix(out, "no answer changes: 0 added, 0 removed, 0 changed, 0 of 10 sampled URLs answered differently\n") {
		t.Errorf("a config against itself: exit %d\n%s", code, out)
	}

	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nstatus = 200\n"), 0o644)
	code, _, errs = runInTestcmd(t, bin, "check", "-baseline", "baseline-old.toml", "-config", bad)
	if code != 1 || !strings.Contains(errs, bad+":4: [[rule]] #1: status") {
		t.Errorf("a bad config: exit %d, want 1\n%s", code, errs)
	}
}

func TestCheckBaselineUsage(t *testing.T) {
	for _, args := range [][]string{
		{"check", "-baseline", "testdata/testcmd/baseline-old.toml"},
		{"check", "-baseline=testdata/testcmd/baseline-old.toml", "-config", "testdata/testcmd/baseline-new.toml", "-format", "yaml"},
	} {
		if code, _, errs := runCmd(args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
	// Without -baseline, check validates one config as before.
	if code, out, _ := runCmd("check", "-config", "testdata/testcmd/baseline-new.toml"); code != 0 || !strings.Contains(out, ": ok: ") {
		t.Errorf("check without -baseline: exit %d\n%s", code, out)
	}
}

// TestBaselineSettings: a change of https_redirect or of [upstream]
// presence is named, and misses are compared as 404 against forward.
func TestBaselineSettings(t *testing.T) {
	dir := writeCaseFiles(t, "old.toml", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n\n[[rule]]\nfrom = \"/gone\"\nto = \"/c\"\n",
		"new.toml", "[server]\nhttps_redirect = true\n\n[upstream]\nservers = [\"127.0.0.1:9\"]\n\n[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n")
	code, out, _ := runCmd("check", "-baseline", filepath.Join(dir, "old.toml"), "-config", filepath.Join(dir, "new.toml"))
	for _, want := range []string{
		"setting changed: [server] https_redirect false -> true",
		"setting changed: [upstream] absent -> set: requests no rule answers are answered forward instead of 404",
		"  /gone\n      old: 301 /c  (" + filepath.Join(dir, "old.toml") + ":5)\n      new: forward  (no rule)\n",
		"1 removed, 0 changed, 1 of 2 sampled URLs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
