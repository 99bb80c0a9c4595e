package importertest

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the out/ files of the golden archives with what the import writes")

// ImportFunc imports the files of one golden archive, written to the
// folder in, and returns what the import wrote and printed, by
// "out/NAME" (out/report for the report).
type ImportFunc func(t *testing.T, in string) map[string]string

// Golden is the one golden test of every importer. Each archive matching
// pattern is a txtar file: a comment saying what the case shows, the
// source files, and the files the import writes under out/. The source
// files are written to a folder, imported by imp, and what it writes is
// compared with the out/ files; with -update the out/ files are
// rewritten from the import's output.
func Golden(t *testing.T, pattern string, imp ImportFunc) {
	t.Helper()
	archives, err := filepath.Glob(pattern)
	if err != nil || len(archives) == 0 {
		t.Fatalf("no golden archives match %s: %v", pattern, err)
	}
	for _, name := range archives {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txt"), func(t *testing.T) {
			a, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			var in []txtar.File
			for _, f := range a.Files {
				if strings.HasPrefix(f.Name, "out/") {
					want[f.Name] = string(f.Data)
				} else {
					in = append(in, f)
				}
			}
			dir := writeFiles(t, in)
			got := imp(t, dir)
			for k, v := range got {
				got[k] = strings.ReplaceAll(v, dir+string(filepath.Separator), "")
			}
			if *update {
				names := make([]string, 0, len(got))
				for n := range got {
					names = append(names, n)
				}
				slices.Sort(names)
				a.Files = in
				for _, n := range names {
					data := got[n]
					if data != "" && !strings.HasSuffix(data, "\n") {
						data += "\n"
					}
					a.Files = append(a.Files, txtar.File{Name: n, Data: []byte(data)})
				}
				if err := os.WriteFile(name, txtar.Format(a), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for k, v := range got {
				if v != "" && !strings.HasSuffix(v, "\n") {
					got[k] = v + "\n" // as txtar holds it
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("import output differs from %s (-want +got; go test -run %s -update rewrites it):\n%s", name, t.Name(), d)
			}
		})
	}
}

// Extract writes the source files of a golden archive (those not under
// out/) to a new folder and returns it, for tests that serve an import.
func Extract(t testing.TB, archive string) string {
	t.Helper()
	a, err := txtar.ParseFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	var in []txtar.File
	for _, f := range a.Files {
		if !strings.HasPrefix(f.Name, "out/") {
			in = append(in, f)
		}
	}
	return writeFiles(t, in)
}

func writeFiles(t testing.TB, files []txtar.File) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
