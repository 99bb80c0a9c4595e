package nginx

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestImportGolden with the import's output")

// TestImportGolden imports each testdata/import/*.txt: the sections named
// "-- FILE --" are nginx files (nginx.conf is the one imported), and those
// named "-- out/FILE --" are what the import writes (redirectd.toml and
// its map files) and prints (out/report). With -update the out/ sections
// are rewritten from the import's output.
func TestImportGolden(t *testing.T) {
	cases, err := filepath.Glob("testdata/import/*.txt")
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, name := range cases {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			comment, files := splitGolden(string(data))
			dir := t.TempDir()
			want := map[string]string{}
			for _, f := range files {
				if strings.HasPrefix(f.name, "out/") {
					want[f.name] = f.text
					continue
				}
				p := filepath.Join(dir, "in", f.name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := importGolden(t, dir)
			if *update {
				var out []goldenFile
				for _, f := range files {
					if !strings.HasPrefix(f.name, "out/") {
						out = append(out, f)
					}
				}
				names := make([]string, 0, len(got))
				for n := range got {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					out = append(out, goldenFile{n, got[n]})
				}
				if err := os.WriteFile(name, []byte(joinGolden(comment, out)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("import output differs from %s (-want +got; go test -run TestImportGolden -update rewrites it):\n%s", name, diff)
			}
		})
	}
}

// importGolden imports dir/in/nginx.conf into dir/out and returns what it
// wrote and printed, by "out/NAME", with dir left out of the paths.
func importGolden(t *testing.T, dir string) map[string]string {
	t.Helper()
	in := filepath.Join(dir, "in")
	dirs, err := ParseFile(filepath.Join(in, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	res := Translate(dirs)
	out := filepath.Join(dir, "out")
	written, err := Write(out, res, "Imported from nginx.conf by redirectd import nginx.")
	if err != nil {
		t.Fatal(err)
	}
	clean := func(s string) string { return strings.ReplaceAll(s, in+string(filepath.Separator), "") }
	got := map[string]string{}
	for _, p := range written {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got["out/"+filepath.Base(p)] = clean(string(b))
	}
	var report bytes.Buffer
	res.Report(written, out).Write(&report)
	got["out/report"] = clean(report.String())
	return got
}

type goldenFile struct{ name, text string }

// splitGolden reads the txtar-like format: a comment, then sections
// that each start with a line "-- NAME --".
func splitGolden(s string) (comment string, files []goldenFile) {
	lines := strings.SplitAfter(s, "\n")
	cur := -1
	var b strings.Builder
	flush := func() {
		if cur < 0 {
			comment = b.String()
		} else {
			files[cur].text = b.String()
		}
		b.Reset()
	}
	for _, l := range lines {
		if name, ok := strings.CutPrefix(strings.TrimRight(l, "\n"), "-- "); ok && strings.HasSuffix(name, " --") {
			flush()
			files = append(files, goldenFile{name: strings.TrimSuffix(name, " --")})
			cur = len(files) - 1
			continue
		}
		b.WriteString(l)
	}
	flush()
	return comment, files
}

func joinGolden(comment string, files []goldenFile) string {
	var b strings.Builder
	b.WriteString(comment)
	for _, f := range files {
		b.WriteString("-- " + f.name + " --\n" + f.text)
		if f.text != "" && !strings.HasSuffix(f.text, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}
