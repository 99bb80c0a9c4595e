package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/internal/testutil"
)

// readmeBlock returns the fenced block that follows the README comment
// "<!-- README example: name", so that the README's examples are the ones
// tests run. The import references beside their packages are read too.
func readmeBlock(t *testing.T, name string) string {
	t.Helper()
	var data []byte
	for _, f := range []string{"../../engine/misses/README.md", "../../config/netlify/README.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	return testutil.FencedBlock(t, string(data), "<!-- README example: "+name, "")
}

// TestReadmeNetlifyExample runs the README's import netlify example and
// compares the config and the report with the ones the README shows.
func TestReadmeNetlifyExample(t *testing.T) {
	in, wantCfg, wantReport := readmeBlock(t, "netlify-in"), readmeBlock(t, "netlify-out"), readmeBlock(t, "netlify-report")
	t.Chdir(t.TempDir())
	os.WriteFile("_redirects", []byte(in), 0o644)
	code, _, report := runCmd("import", "netlify", "-o", "redirectd.toml", "_redirects")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, report)
	}
	cfg, _ := os.ReadFile("redirectd.toml")
	if d := cmp.Diff(wantCfg, string(cfg)); d != "" {
		t.Errorf("config (-README +got):\n%s", d)
	}
	if d := cmp.Diff(wantReport, report); d != "" {
		t.Errorf("report (-README +got):\n%s", d)
	}
}

// TestReadmeMissesMap checks the README's map from GET /misses: check
// refuses it with the error the README shows, and takes it once filled.
func TestReadmeMissesMap(t *testing.T) {
	m, wantErr := readmeBlock(t, "misses-map"), readmeBlock(t, "misses-error")
	t.Chdir(t.TempDir())
	os.WriteFile("missing.map", []byte(m), 0o644)
	os.WriteFile("redirectd.toml", []byte("[[map]]\nfile = \"missing.map\"\nhost = \"example.com\"\n"), 0o644)
	code, _, errs := runCmd("check", "-config", "redirectd.toml")
	if code != 1 || !strings.Contains(errs, wantErr) {
		t.Errorf("check of the unfilled map: exit %d\n%s\nwant the README's\n%s", code, errs, wantErr)
	}
	filled := strings.NewReplacer("/old/pricing.html ;", "/old/pricing.html /pricing;", "/blog/2019/hello ;", "/blog/2019/hello /blog/hello;").Replace(m)
	os.WriteFile("missing.map", []byte(filled), 0o644)
	if code, out, errs := runCmd("check", "-config", "redirectd.toml"); code != 0 {
		t.Errorf("check of the filled map: exit %d\n%s%s", code, out, errs)
	}
}
