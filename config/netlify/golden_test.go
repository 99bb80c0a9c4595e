package netlify_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/geoip/geoiptest"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/netlify"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestImportGolden imports each testdata folder's _redirects or
// netlify.toml and compares the config written and the report with the
// golden files beside it (-update rewrites them). The config must load.
// The folder conditions is imported as with -geoip country.mmdb, and
// loaded with a test database in that name's place.
func TestImportGolden(t *testing.T) {
	for _, dir := range []string{"docs", "order", "toml", "conditions"} {
		t.Run(dir, func(t *testing.T) {
			name := "_redirects"
			if dir == "toml" {
				name = "netlify.toml"
			}
			var opt importer.Options
			if dir == "conditions" {
				opt.GeoIP = "country.mmdb"
			}
			cfg, report := importFile(t, filepath.Join("testdata", dir), name, opt)
			if opt.GeoIP != "" {
				db := geoiptest.Write(t, map[string]string{"192.0.2.0/24": "AT"})
				cfg := bytes.Replace(cfg, []byte("'country.mmdb'"), []byte(importer.Quote(db)), 1)
				file := filepath.Join(t.TempDir(), "redirectd.toml")
				if err := os.WriteFile(file, cfg, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := config.Load(file); err != nil {
					t.Fatalf("the written config does not load: %v", err)
				}
			} else if _, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: cfg}}, "redirectd.toml"); err != nil {
				t.Fatalf("the written config does not load: %v", err)
			}
			golden(t, filepath.Join("testdata", dir, "redirectd.toml.golden"), cfg)
			golden(t, filepath.Join("testdata", dir, "report.golden"), report)
		})
	}
}

// importFile runs the import as the command does, with the file named as
// in the folder, so that the golden files do not depend on the path.
func importFile(t *testing.T, dir, name string, opt importer.Options) (cfg, report []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	cands, notes, err := netlify.Load(name, data, opt)
	if err != nil {
		t.Fatal(err)
	}
	res := importer.Order(cands)
	res.Notes = append(notes, res.Notes...)
	var out, rep bytes.Buffer
	if err := importer.WriteTOML(&out, "Imported from "+name+" by redirectd import netlify.", opt.GeoIP, res.Rules); err != nil {
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
