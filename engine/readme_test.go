package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeFiles: the table of files in README.md ("Where the code is")
// names every source file of the package, and nothing that is not one,
// so that the map a newcomer reads first matches the folder.
func TestReadmeFiles(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "## Where the code is")
	if !ok {
		t.Fatal(`README.md has no "## Where the code is" section`)
	}
	var patterns []string
	cell := regexp.MustCompile("`([^`]+\\.go)`")
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			patterns = append(patterns, m[1])
		}
	}
	files, _ := filepath.Glob("*.go")
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, "_test.go") })
	for _, f := range files {
		if !slices.ContainsFunc(patterns, func(p string) bool { ok, _ := filepath.Match(p, f); return ok }) {
			t.Errorf("README.md's table of files does not name %s", f)
		}
	}
	for _, p := range patterns {
		if !slices.ContainsFunc(files, func(f string) bool { ok, _ := filepath.Match(p, f); return ok }) {
			t.Errorf("README.md's table of files names %s, which is not in the folder", p)
		}
	}
}
