package engine_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEngineDoesNotImportConfig keeps the dependency direction: the
// engine serves what it is given in its own types, and cmd/redirectd
// converts the config into them. An engine package that imported the
// config package would tie the serving path to the TOML format and its
// loader. No engine file, tests included, imports config itself; its
// sub-packages are refused outside tests (tests may build a GeoIP
// database with config/geoip/geoiptest, a fixture, not the loader).
func TestEngineDoesNotImportConfig(t *testing.T) {
	const configPkg = "github.com/redirectd/redirectd/config"
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			sub := strings.HasPrefix(p, configPkg+"/") && !strings.HasSuffix(path, "_test.go")
			if p == configPkg || sub {
				t.Errorf("%s imports %s: give the engine package its own types and convert in cmd/redirectd", fset.Position(imp.Pos()), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
