package redirectd_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeLayout: the README's Layout table names every package of
// the module, so that the map a newcomer reads first matches the
// folders. A package is named by its path in backquotes, or, a helper
// inside another (geoiptest, the benchmarks' tools), by its name in
// the row of a package above it. Every path a row starts with exists.
func TestReadmeLayout(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{} // a row's first package: the row
	quoted := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		dir := "" // "`cmd/x/configload`, `engineopts`": the second is cmd/x/engineopts
		for _, m := range quoted.FindAllStringSubmatch(first, -1) {
			name := m[1]
			if strings.Contains(name, "/") {
				dir = path.Dir(name)
			} else if dir != "" {
				name = path.Join(dir, name)
			}
			rows[name] = line
			if _, err := os.Stat(name); err != nil {
				t.Errorf("the Layout table names %s, which is not a folder", name)
			}
		}
	}
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if p == "." || !hasGo(p) {
			return nil
		}
		p = filepath.ToSlash(p)
		if rows[p] != "" {
			return nil
		}
		for a := path.Dir(p); a != "."; a = path.Dir(a) {
			if row := rows[a]; row != "" && (strings.Contains(row, "`"+path.Base(p)+"`") || strings.Contains(row, "`"+path.Base(p)+"/`")) {
				return nil
			}
		}
		t.Errorf("README.md's Layout table does not name the package %s", p)
		return nil
	})
}

// hasGo reports whether dir holds a Go file that is not a test.
func hasGo(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			return true
		}
	}
	return false
}
