package nginx

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
	"github.com/redirectd/redirectd/config/importer/importertest"
)

// TestImportGolden imports each testdata/import/*.txt archive: its files
// are nginx files (nginx.conf is the one imported), and those under out/
// are what the import writes (redirectd.toml and its map files) and
// prints (out/report). With -update the out/ files are rewritten from the
// import's output. Each written config must load.
func TestImportGolden(t *testing.T) {
	importertest.Golden(t, "testdata/import/*.txt", func(t *testing.T, in string) map[string]string {
		dirs, err := ParseFile(filepath.Join(in, "nginx.conf"))
		if err != nil {
			t.Fatal(err)
		}
		res := Translate(dirs)
		out := t.TempDir()
		written, err := Write(out, res, "Imported from nginx.conf by redirectd import nginx.")
		if err != nil {
			t.Fatal(err)
		}
		// What the import writes loads, upstream groups and routes
		// included.
		if _, err := config.Load(filepath.Join(out, importer.ConfigName)); err != nil {
			t.Errorf("the written config does not load: %v", err)
		}
		got := map[string]string{}
		for _, p := range written {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got["out/"+filepath.Base(p)] = string(b)
		}
		var report bytes.Buffer
		res.Report(written, out).Write(&report)
		got["out/report"] = report.String()
		return got
	})
}
