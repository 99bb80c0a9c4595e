package netlify

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/geoip/geoiptest"
	"github.com/redirectd/redirectd/config/importer"
)

func mustRegexp(t testing.TB, expr string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return re
}

// FuzzImport feeds arbitrary _redirects text through the whole import
// (parse, translate, order, write) and checks, beyond not panicking, that
// every line holding a rule is either translated or noted with its line,
// that each rule's regex agrees with its model on its own samples, and
// that the written config loads.
func FuzzImport(f *testing.F) {
	for _, s := range []string{
		"/a /b 301\n/a/* /c/:splat\n",
		"/p/:id /q/:id 302!\n/p/x /y\n",
		"/s id=:id /t/:id 301\n/s /u\n",
		"https://h.example/* https://x.example/:splat 301!\n/ /fr 302 Country=fr\n",
		"/x /y 200\n/z /w 404\n/* /index.html 200\n",
		"/a/:b/:b /c\n/a* /b\n/$ /$1 301\n",
		"/ /de/ 302 Language=de\n/ /en/\n/b/* /de/b/:splat 302 Language=de-AT,fr\n/b/c /d\n",
		"/x /y Language=*\n/x /z Language=\n/x /w Language=d_e Cookie=a Role=r\n",
		"/ /at/ 302 Country=at,ch Language=de\n/ /x/ 302 Country=A1\n/s/:p /t/:p Country=at\n/s/q /r\n",
		"/d/k_* /r#:splat 301\n/d/k_x /y\n/v1.* /v/:splat 302!\n/* /z/:splat\n/a/:p* /b\n/a/b*c /d\n",
		"/a /b\n/b /a\n/c /c 301!\n",
	} {
		f.Add(s)
	}
	// A source with Country= is imported as with -geoip, its config
	// loaded with this database.
	db := geoiptest.Write(f, map[string]string{"192.0.2.0/24": "AT"})
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		var opt importer.Options
		if strings.Contains(src, "Country=") {
			opt.GeoIP = db
		}
		rules, notes := Parse("_redirects", []byte(src))
		cands, more := Translate("_redirects", rules, opt)
		notes = append(notes, more...)
		res := importer.Order(cands)
		accounted := map[int]bool{}
		for _, n := range append(notes, res.Notes...) {
			if n.Line > 0 {
				accounted[n.Line] = true
			}
		}
		for _, r := range res.Rules {
			accounted[r.Line] = true
		}
		for i, line := range strings.Split(src, "\n") {
			line = strings.TrimSpace(line)
			if line != "" && line[0] != '#' && !accounted[i+1] {
				t.Errorf("line %d %q is neither translated nor noted", i+1, line)
			}
		}
		for _, c := range cands {
			if c.Regex == nil || c.Matches == nil || c.Regex.RequestURI {
				continue
			}
			re := mustRegexp(t, c.Regex.From)
			for _, s := range c.Samples {
				// The model of a rule with conditions holds for the
				// clients who satisfy them: ask as one.
				s.Client = importer.ClientFor(c.When)
				if s.Query == "" && s.Host == c.Regex.Host && len(c.Regex.Query) == 0 && re.MatchString(s.Path) != c.Matches(s) {
					t.Errorf("line %d: regex %s and model disagree on %s", c.Line, c.Regex.From, s.Path)
				}
			}
		}
		var buf bytes.Buffer
		importer.WriteFileOrderTOML(&buf, "fuzz", opt.GeoIP, res.Rules)
		var err error
		if opt.GeoIP != "" {
			// The database is named by an absolute path, which LoadFS
			// would take as relative to its root: load a file.
			file := filepath.Join(t.TempDir(), "r.toml")
			if err = os.WriteFile(file, buf.Bytes(), 0o644); err == nil {
				_, err = config.Load(file)
			}
		} else {
			_, err = config.LoadFS(fstest.MapFS{"r.toml": {Data: buf.Bytes()}}, "r.toml")
		}
		if err != nil {
			t.Errorf("the written config does not load: %v\n%s", err, buf.String())
		}
	})
}
