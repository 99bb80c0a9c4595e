package netlify_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/geoip/geoiptest"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/importer/importertest"
	"github.com/redirectd/redirectd/config/netlify"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestImportGolden imports each testdata folder's _redirects or
// netlify.toml and compares the config written and the report with the
// golden files beside it (-update rewrites them). The config must load.
// The folder conditions is imported as with -geoip country.mmdb, and
// loaded with a test database in that name's place.
func TestImportGolden(t *testing.T) {
	for _, dir := range []string{"docs", "order", "toml", "conditions", "fallback"} {
		t.Run(dir, func(t *testing.T) {
			name := "_redirects"
			if dir == "toml" {
				name = "netlify.toml"
			}
			var opt importer.Options
			if dir == "conditions" {
				opt.GeoIP = "country.mmdb"
			}
			cfg, report := importertest.Import(t, "netlify", netlify.Load, filepath.Join("testdata", dir), name, opt)
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
			importertest.Golden(t, filepath.Join("testdata", dir, "redirectd.toml.golden"), cfg, *update)
			importertest.Golden(t, filepath.Join("testdata", dir, "report.golden"), report, *update)
		})
	}
}
