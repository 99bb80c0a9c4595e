package netlify_test

import (
	"bytes"
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

// TestImportGolden imports the _redirects or netlify.toml of each
// testdata/import archive and compares the config written and the report
// with the archive's out/ files (-update rewrites them). The config must
// load. The conditions case is imported as with -geoip country.mmdb, and
// loaded with a test database in that name's place.
func TestImportGolden(t *testing.T) {
	importertest.Golden(t, "testdata/import/*.txt", func(t *testing.T, in string) map[string]string {
		name := "_redirects"
		if _, err := os.Stat(filepath.Join(in, name)); err != nil {
			name = "netlify.toml"
		}
		var opt importer.Options
		if filepath.Base(t.Name()) == "conditions" {
			opt.GeoIP = "country.mmdb"
		}
		cfg, report := importertest.Import(t, "netlify", netlify.Load, in, name, opt)
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
		return map[string]string{"out/redirectd.toml": string(cfg), "out/report": string(report)}
	})
}
