package main

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/internal/testutil"
)

var updateTestGolden = flag.Bool("update-testcmd", false, "rewrite the golden files of the test and check -baseline commands")

// testcmdDir holds the configs, case files and golden outputs of the test
// and check -baseline commands; the binary runs in it so that the file
// names it prints are short and stable.
const testcmdDir = "testdata/testcmd"

// runInTestcmd runs bin with args in testcmdDir.
func runInTestcmd(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = testcmdDir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// golden compares got with testcmdDir/name, or rewrites it with
// -update-testcmd.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join(testcmdDir, name)
	if *updateTestGolden {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s (-want +got):\n%s", name, d)
	}
}

// TestTestAndBaselineBinary runs `redirectd test` and `redirectd check
// -baseline`, built, on the configs and case files of testdata/testcmd:
// each case is answered by the real server on a loopback port.
func TestTestAndBaselineBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)

	t.Run("passing", func(t *testing.T) {
		code, out, errs := runInTestcmd(t, bin, "test", "-config", "site.toml", "pass.cases")
		if code != 0 || out != "ok: 11 cases passed (1 case file)\n" || errs != "" {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
		}
	})
	t.Run("failing", func(t *testing.T) {
		code, out, errs := runInTestcmd(t, bin, "test", "-config", "site.toml", "fail.cases")
		if code != 1 || errs != "" {
			t.Errorf("exit %d, stderr %q; want 1 and nothing", code, errs)
		}
		golden(t, "fail.golden", out)
	})
	t.Run("junit", func(t *testing.T) {
		report := filepath.Join(t.TempDir(), "report.xml")
		code, out, errs := runInTestcmd(t, bin, "test", "-config", "site.toml", "-format", "junit", "-o", report, "pass.cases", "fail.cases")
		if code != 1 || out != "FAIL: 4 of 17 cases failed (2 case files)\n" {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		checkJUnit(t, data)
	})
	t.Run("forward with upstream", func(t *testing.T) {
		code, out, errs := runInTestcmd(t, bin, "test", "-config", "upstream.toml", "forward.cases")
		if code != 0 || out != "ok: 5 cases passed (1 case file)\n" {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
		}
	})
	t.Run("forward by routes", func(t *testing.T) {
		code, out, errs := runInTestcmd(t, bin, "test", "-config", "routes.toml", "routes.cases")
		if code != 0 || out != "ok: 4 cases passed (1 case file)\n" {
			t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
		}
	})
	t.Run("forward without upstream", func(t *testing.T) {
		code, out, _ := runInTestcmd(t, bin, "test", "-config", "site.toml", "forward.cases")
		note := "note: the config has no [upstream], so a request no rule answers gets 404, never forwarded; add [upstream] to test forwarding"
		if code != 1 || strings.Count(out, note) != 3 || !strings.HasSuffix(out, "FAIL: 3 of 5 cases failed (1 case file)\n") ||
			!strings.Contains(out, "FAIL forward.cases:4: GET /keep               -> forward\n    - want: forward\n    + got:  404\n      rule: site.map:4 (exact \"/keep\"), a no-redirect entry: 404\n") {
			t.Errorf("exit %d\nstdout: %s", code, out)
		}
	})
	t.Run("malformed case file", func(t *testing.T) {
		code, out, errs := runInTestcmd(t, bin, "test", "-config", "site.toml", "pass.cases", "bad.cases")
		if code != 1 || out != "" {
			t.Errorf("exit %d, stdout %q; want 1 (an input that does not load) and nothing", code, out)
		}
		golden(t, "bad.golden", errs)
	})
	t.Run("check -baseline", func(t *testing.T) { testBaselineBinary(t, bin) })
	t.Run("bad config", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.toml")
		os.WriteFile(bad, []byte("[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nstatus = 200\n"), 0o644)
		code, _, errs := runInTestcmd(t, bin, "test", "-config", bad, "pass.cases")
		if code != 1 || !strings.Contains(errs, bad+":4: [[rule]] #1: status") {
			t.Errorf("exit %d\nstderr: %s", code, errs)
		}
	})
}

// checkJUnit reads a report of pass.cases then fail.cases as a CI system
// would, with encoding/xml into the JUnit schema's own shape.
func checkJUnit(t *testing.T, data []byte) {
	t.Helper()
	var rep struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &rep); err != nil {
		t.Fatalf("the report is not XML: %v\n%s", err, data)
	}
	if rep.Tests != 17 || rep.Failures != 4 || len(rep.Suites) != 2 {
		t.Fatalf("tests %d failures %d suites %d, want 17, 4, 2\n%s", rep.Tests, rep.Failures, len(rep.Suites), data)
	}
	var names []string
	for _, s := range rep.Suites {
		if len(s.Cases) != s.Tests {
			t.Errorf("suite %s: tests=%d but %d testcases", s.Name, s.Tests, len(s.Cases))
		}
		for _, c := range s.Cases {
			if c.Failure != nil {
				names = append(names, c.Name)
			}
			if c.Classname != s.Name {
				t.Errorf("testcase %s has classname %q, not its file", c.Name, c.Classname)
			}
		}
	}
	if d := cmp.Diff([]string{"fail.cases:2", "fail.cases:3", "fail.cases:4", "fail.cases:6"}, names); d != "" {
		t.Errorf("failed testcases (-want +got):\n%s", d)
	}
	f := rep.Suites[1].Cases[0].Failure
	if f.Message != "want 302 https://new.example/company, got 301 https://new.example/company" ||
		!strings.Contains(f.Text, "    - want: 302 https://new.example/company\n    + got:  301 https://new.example/company\n      rule: site.map:2 (exact \"/about\")") {
		t.Errorf("failure of fail.cases:2: %q\n%s", f.Message, f.Text)
	}
}

// writeCaseFiles writes name, text pairs into a new folder and returns it.
func writeCaseFiles(t testing.TB, files ...string) string {
	dir := t.TempDir()
	for i := 0; i+1 < len(files); i += 2 {
		if err := os.WriteFile(filepath.Join(dir, files[i]), []byte(files[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTestCommandReconnects sends, on a few pipelined connections, cases
// whose answers close the connection (400 for a target the server
// refuses) among ordinary ones: every case after them is still sent again
// on a new connection and answered.
func TestTestCommandReconnects(t *testing.T) {
	var cases strings.Builder
	for i := range 1000 {
		if i%97 == 0 {
			fmt.Fprintf(&cases, "GET /bad\"%d -> 400\n", i)
			continue
		}
		fmt.Fprintf(&cases, "GET /p/%d -> 301 https://new.example/%d\n", i, i)
	}
	dir := writeCaseFiles(t, "r.toml", "[[rule]]\nmatch = \"regex\"\nfrom = '^/p/(\\d+)$'\nto = \"https://new.example/$1\"\n", "c.cases", cases.String())
	code, out, errs := runCmd("test", "-config", filepath.Join(dir, "r.toml"), filepath.Join(dir, "c.cases"))
	if code != 0 || out != "ok: 1000 cases passed (1 case file)\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// TestTestCommandHTTPSAndHeaders: an https:// case is marked so for
// https_redirect (which is named as what answered a failure), and a case's
// header fields are sent.
func TestTestCommandHTTPSAndHeaders(t *testing.T) {
	dir := writeCaseFiles(t, "r.toml", "[server]\nhttps_redirect = true\n\n[[rule]]\nfrom = \"/a\"\nto = \"https://h.example/b\"\n",
		"c.cases", "GET http://h.example/a?x -> 301 https://h.example/a?x\nGET https://h.example/a -> 301 https://h.example/b\nGET /a -> 301 https://h.example/b\n")
	code, out, _ := runCmd("test", "-config", filepath.Join(dir, "r.toml"), filepath.Join(dir, "c.cases"))
	want := "    - want: 301 https://h.example/b\n    + got:  301 https://redirectd-test.invalid/a\n      rule: [server] https_redirect (a request not marked https gets a 301 to https)\n"
	if code != 1 || !strings.Contains(out, want) || !strings.HasSuffix(out, "FAIL: 1 of 3 cases failed (1 case file)\n") {
		t.Errorf("exit %d\n%s", code, out)
	}

	// -host changes the host of path cases; the header reaches the
	// server (an X-Forwarded-Proto of the case's own marks it https).
	os.WriteFile(filepath.Join(dir, "c.cases"), []byte("GET /a X-Forwarded-Proto:https -> 301 https://h.example/b\nGET /a -> 301 https://x.example/a\n"), 0o644)
	code, out, _ = runCmd("test", "-config", filepath.Join(dir, "r.toml"), "-host", "x.example", filepath.Join(dir, "c.cases"))
	if code != 0 {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestTestCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"test"},
		{"test", "-config", "testdata/testcmd/site.toml"},
		{"test", "-config", "testdata/testcmd/site.toml", "-format", "tap", "testdata/testcmd/pass.cases"},
	} {
		if code, _, errs := runCmd(args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
}

// TestReadmeCases: the case file shown in this command's README, "Testing
// a rule set", is testdata/testcmd/pass.cases, which
// TestTestAndBaselineBinary runs.
func TestReadmeCases(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := testutil.FencedBlock(t, string(readme), "<!-- README example: pass-cases", "")
	file, err := os.ReadFile(filepath.Join(testcmdDir, "pass.cases"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(file), block); d != "" {
		t.Errorf("README example (-pass.cases +README):\n%s", d)
	}
}
