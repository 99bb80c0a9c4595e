package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRun: a passing package's ok line, a failing test's output and the
// package's FAIL, and each skip with its reason at the end.
func TestRun(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"a"}`,
		`{"Action":"run","Package":"a","Test":"TestOK"}`,
		`{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"output","Package":"a","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}`,
		`{"Action":"pass","Package":"a","Test":"TestOK"}`,
		`{"Action":"run","Package":"a","Test":"TestNginx"}`,
		`{"Action":"output","Package":"a","Test":"TestNginx","Output":"=== RUN   TestNginx\n"}`,
		`{"Action":"output","Package":"a","Test":"TestNginx","Output":"    x_test.go:9: nginx is not installed\n"}`,
		`{"Action":"output","Package":"a","Test":"TestNginx","Output":"--- SKIP: TestNginx (0.00s)\n"}`,
		`{"Action":"skip","Package":"a","Test":"TestNginx"}`,
		`{"Action":"output","Package":"a","Output":"PASS\n"}`,
		`{"Action":"output","Package":"a","Output":"ok  \ta\t0.01s\n"}`,
		`{"Action":"pass","Package":"a"}`,
		`{"Action":"run","Package":"b","Test":"TestBad"}`,
		`{"Action":"output","Package":"b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n    b_test.go:3: wrong\n"}`,
		`{"Action":"fail","Package":"b","Test":"TestBad"}`,
		`{"Action":"output","Package":"b","Output":"FAIL\tb\t0.02s\n"}`,
		`{"Action":"fail","Package":"b"}`,
		`{"ImportPath":"c","Action":"build-output","Output":"# c\n"}`,
		`{"ImportPath":"c","Action":"build-output","Output":"c/c.go:1: syntax error\n"}`,
		`{"ImportPath":"c","Action":"build-fail"}`,
	}, "\n")
	var out strings.Builder
	code := run(strings.NewReader(in), &out)
	want := "ok  \ta\t0.01s\n--- FAIL: TestBad (0.00s)\n    b_test.go:3: wrong\nFAIL\tb\t0.02s\n# c\nc/c.go:1: syntax error\n\n1 test skipped:\n  a TestNginx: x_test.go:9: nginx is not installed\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
