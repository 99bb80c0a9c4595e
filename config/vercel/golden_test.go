package vercel_test

import (
	"flag"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/importer/importertest"
	"github.com/redirectd/redirectd/config/vercel"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestImportGolden imports each testdata folder's vercel.json and compares the config written and the report with the
// golden files beside it (-update rewrites them). The config must load.
func TestImportGolden(t *testing.T) {
	for _, dir := range []string{"app", "conditions"} {
		t.Run(dir, func(t *testing.T) {
			name := "vercel.json"
			cfg, report := importertest.Import(t, "vercel", vercel.Load, filepath.Join("testdata", dir), name, importer.Options{})
			if _, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: cfg}}, "redirectd.toml"); err != nil {
				t.Fatalf("the written config does not load: %v", err)
			}
			importertest.Golden(t, filepath.Join("testdata", dir, "redirectd.toml.golden"), cfg, *update)
			importertest.Golden(t, filepath.Join("testdata", dir, "report.golden"), report, *update)
		})
	}
}
