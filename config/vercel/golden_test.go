package vercel_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/vercel"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestImportGolden imports each testdata folder's vercel.json and compares the config written and the report with the
// golden files beside it (-update rewrites them). The config must load.
func TestImportGolden(t *testing.T) {
	for _, dir := range []string{"app", "conditions"} {
		t.Run(dir, func(t *testing.T) {
			name := "vercel.json"
			cfg, report := importFile(t, filepath.Join("testdata", dir), name)
			if _, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: cfg}}, "redirectd.toml"); err != nil {
				t.Fatalf("the written config does not load: %v", err)
			}
			golden(t, filepath.Join("testdata", dir, "redirectd.toml.golden"), cfg)
			golden(t, filepath.Join("testdata", dir, "report.golden"), report)
		})
	}
}

// importFile runs the import as the command does, with the file named as
// in the folder, so that the golden files do not depend on the path.
func importFile(t *testing.T, dir, name string) (cfg, report []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	cands, notes, err := vercel.Load(name, data, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := importer.Order(cands)
	res.Notes = append(notes, res.Notes...)
	var out, rep bytes.Buffer
	if err := importer.WriteTOML(&out, "Imported from "+name+" by redirectd import vercel.", "", res.Rules); err != nil {
		t.Fatal(err)
	}
	res.Report(&rep, "redirectd.toml")
	return out.Bytes(), rep.Bytes()
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s (-want +got):\n%s", path, d)
	}
}
