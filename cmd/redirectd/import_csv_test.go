package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// csvPlace finds the file:line a report line names.
var csvPlace = regexp.MustCompile(`(\S+\.csv:\d+): `)

// TestImportCSVBadRows imports a CSV with four bad rows and a duplicate:
// each is left out with its line and reason, in the report and in the
// config's header, and the good rows are written, load and answer.
func TestImportCSVBadRows(t *testing.T) {
	dir := t.TempDir()
	csvFile := filepath.Join(dir, "bulk.csv")
	os.WriteFile(csvFile, []byte("source,target,status\n"+
		"/a,/b,301\n"+
		"/c,/d,299\n"+
		"/e\n"+
		"/f,/g,301,maybe\n"+
		"/a,/dup,301\n"+
		"/k,/l,302\n"+
		"\"/h,/i\n"), 0o644)
	out := filepath.Join(dir, "imported.toml")
	code, _, errs := runCmd("import", "csv", "-o", out, csvFile)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, errs)
	}
	var left []string
	under := false // in the report's "left out (N):" list
	for _, l := range strings.Split(errs, "\n") {
		if !strings.HasPrefix(l, " ") {
			under = strings.HasPrefix(l, "left out (")
		}
		if m := csvPlace.FindStringSubmatch(l); m != nil && under {
			left = append(left, strings.TrimPrefix(m[1], dir+string(filepath.Separator)))
		}
	}
	if diff := cmp.Diff([]string{"bulk.csv:3", "bulk.csv:4", "bulk.csv:5", "bulk.csv:6", "bulk.csv:8"}, left); diff != "" {
		t.Errorf("rows left out (-want +got):\n%s\n%s", diff, errs)
	}
	if !strings.Contains(errs, "wrote "+out+": 2 rules\n       2  exact\n       5  left out\n") {
		t.Errorf("the summary does not count the rows left out:\n%s", errs)
	}
	body, _ := os.ReadFile(out)
	if !strings.Contains(string(body), "# 5 rows left out:\n#   "+csvFile+":3: status \"299\"") {
		t.Errorf("the config does not list the rows left out:\n%s", body)
	}
	if code, _, errs := runCmd("check", "-config", out); code != 0 {
		t.Errorf("check of the import: exit %d\n%s", code, errs)
	}
	for url, want := range map[string]string{"/a": "location: /b\n", "/k": "location: /l\n"} {
		if code, stdout, errs := runCmd("explain", "-config", out, url); code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("explain %s: %d %q %q, want %q", url, code, stdout, errs, want)
		}
	}
	// A file of nothing but bad rows is an error: there is nothing to write.
	os.WriteFile(csvFile, []byte("/c,/d,299\n/e\n"), 0o644)
	if code, _, errs := runCmd("import", "csv", csvFile); code != 1 || !strings.Contains(errs, "bulk.csv:2: a row is") {
		t.Errorf("import of only bad rows: exit %d\n%s", code, errs)
	}
}
