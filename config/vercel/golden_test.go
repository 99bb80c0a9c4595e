package vercel_test

import (
	"testing"
	"testing/fstest"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/importer/importertest"
	"github.com/redirectd/redirectd/config/vercel"
)

// TestImportGolden imports the vercel.json of each testdata/import
// archive and compares the config written and the report with the
// archive's out/ files (-update rewrites them). The config must load.
func TestImportGolden(t *testing.T) {
	importertest.Golden(t, "testdata/import/*.txt", func(t *testing.T, in string) map[string]string {
		cfg, report := importertest.Import(t, "vercel", vercel.Load, in, "vercel.json", importer.Options{})
		if _, err := config.LoadFS(fstest.MapFS{"redirectd.toml": {Data: cfg}}, "redirectd.toml"); err != nil {
			t.Fatalf("the written config does not load: %v", err)
		}
		return map[string]string{"out/redirectd.toml": string(cfg), "out/report": string(report)}
	})
}
