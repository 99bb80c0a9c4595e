package config_test

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/geoip/geoiptest"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

func TestWhenLoad(t *testing.T) {
	db := geoiptest.Write(t, map[string]string{"127.0.0.0/8": "AT"})
	file := writeFiles(t, map[string]string{
		"redirectd.toml": `
[geoip]
database = "` + db + `"

[[rule]]
from = "/home"
to = "/en/"

[[rule]]
from = "/home"
to = "/de/"
when = { language = ["de", "de-*"], country = ["AT", "CH", "DE"], header = { X-Device = "mobile" }, cookie = { lang = "fr" } }

[[map]]
file = "de.map"
when = { language = "de" }
`,
		"de.map": "/shop /de/shop;\n",
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := &matcher.When{
		Language: []string{"de", "de-*"},
		Country:  []string{"AT", "CH", "DE"},
		Header:   []matcher.KeyValue{{Name: "X-Device", Value: "mobile"}},
		Cookie:   []matcher.KeyValue{{Name: "lang", Value: "fr"}},
	}
	rules := cfg.Set.Rules()
	if diff := cmp.Diff(want, rules[1].When); diff != "" {
		t.Errorf("rule's when (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff(&matcher.When{Language: []string{"de"}}, rules[2].When); diff != "" {
		t.Errorf("map's when (-want +got)\n%s", diff)
	}
	if cfg.Set.Countries() == nil {
		t.Error("the Set has no country database")
	}
}

// TestWhenUnlessLoad reads a presence condition ("*") and an unless table
// with its query, as the Vercel import writes them.
func TestWhenUnlessLoad(t *testing.T) {
	file := writeFiles(t, map[string]string{"redirectd.toml": `
[[rule]]
from = "/welcome"
to = "/start"
when = { cookie = { session = "*" }, unless = { cookie = { seen = "*" }, header = { X-Beta = "1" }, query = { stay = "*", "utm source" = "x" }, language = "de" } }
`})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := &matcher.When{
		Cookie: []matcher.KeyValue{{Name: "session", Value: "*"}},
		Unless: &matcher.When{
			Language: []string{"de"},
			Header:   []matcher.KeyValue{{Name: "X-Beta", Value: "1"}},
			Cookie:   []matcher.KeyValue{{Name: "seen", Value: "*"}},
			Query:    []matcher.QueryCond{{Name: "stay", Value: "*"}, {Name: "utm source", Value: "x"}},
		},
	}
	if diff := cmp.Diff(want, cfg.Set.Rules()[0].When); diff != "" {
		t.Errorf("when (-want +got)\n%s", diff)
	}
}

func TestWhenErrors(t *testing.T) {
	const rule = "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\n"
	db := geoiptest.Write(t, map[string]string{"127.0.0.0/8": "AT"})
	junk := filepath.Join(t.TempDir(), "junk.mmdb")
	if err := os.WriteFile(junk, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	geo := "[geoip]\ndatabase = \"" + db + "\"\n"
	tests := []struct{ name, toml, want string }{
		{"bad language tag", rule + "when = { language = [\"de_DE\"] }\n", `redirectd.toml:4: [[rule]] #1: when.language: "de_DE" is not a language range`},
		{"language not a string", rule + "when = { language = [1] }\n", `redirectd.toml:4: [[rule]] #1: when.language: must be a list of strings`},
		{"bad country code", geo + rule + "\nwhen = { country = [\"de\"] }\n", `redirectd.toml:7: [[rule]] #1: when.country: "de" is not an ISO 3166 alpha-2 country code`},
		{"country without geoip", rule + "when = { country = [\"DE\"] }\n", `redirectd.toml:4: [[rule]] #1: when.country: needs a country database: add [geoip]`},
		{"unknown condition", rule + "when = { browser = \"x\" }\n", `redirectd.toml:4: [[rule]] #1: when.browser: unknown condition`},
		{"when not a table", rule + "when = \"de\"\n", `redirectd.toml:4: [[rule]] #1: when: must be a table`},
		{"empty when", rule + "when = {}\n", `redirectd.toml:4: [[rule]] #1: when: the table is empty`},
		{"header value not a string", rule + "when = { header = { X-A = 1 } }\n", `redirectd.toml:4: [[rule]] #1: when.header: "X-A" must be a string`},
		{"bad header name", rule + "when = { header = { \"X A\" = \"1\" } }\n", `redirectd.toml:4: [[rule]] #1: when.header: "X A" is not a valid name`},
		{"map bad language", "[[map]]\nfile = \"m.map\"\nwhen = { language = \"123\" }\n", `redirectd.toml:3: [[map]] #1: when.language: "123" is not a language range`},
		{"database missing", "[geoip]\ndatabase = \"/nonexistent/x.mmdb\"\n", `redirectd.toml:2: [geoip]: database: cannot open the country database`},
		{"database junk", "[geoip]\n\ndatabase = \"" + junk + "\"\n", `redirectd.toml:3: [geoip]: database: cannot open the country database`},
		{"geoip unknown key", "[geoip]\npath = \"x\"\n", `redirectd.toml:2: [geoip]: path: unknown key`},
		{"query outside unless", rule + "when = { query = { a = \"1\" } }\n", `redirectd.toml:4: [[rule]] #1: when.query: a query condition goes in the rule's query`},
		{"unless not a table", rule + "when = { unless = \"x\" }\n", `redirectd.toml:4: [[rule]] #1: when.unless: must be a non-empty table`},
		{"empty unless", rule + "when = { unless = {} }\n", `redirectd.toml:4: [[rule]] #1: when.unless: must be a non-empty table`},
		{"unless in unless", rule + "when = { unless = { unless = { language = \"de\" } } }\n", `redirectd.toml:4: [[rule]] #1: when.unless.unless: an unless holds no unless`},
		{"unknown in unless", rule + "when = { unless = { browser = \"x\" } }\n", `redirectd.toml:4: [[rule]] #1: when.unless.browser: unknown condition; use "language", "country", "header", "cookie", "scheme", "query", "ip", "method" or "sample"`},
		{"bad scheme", rule + "when = { scheme = \"ftp\" }\n", `redirectd.toml:4: [[rule]] #1: when.scheme: must be "http" (plain requests) or "https" (requests over TLS), not "ftp"`},
		{"scheme not a string", rule + "when = { scheme = [\"http\"] }\n", `redirectd.toml:4: [[rule]] #1: when.scheme: must be "http" (plain requests) or "https" (requests over TLS), not an array`},
		{"unless country without geoip", rule + "when = { unless = { country = \"DE\" } }\n", `redirectd.toml:4: [[rule]] #1: when.unless.country: needs a country database`},
		{"unless bad header", rule + "when = { unless = { header = { \"X A\" = \"1\" } } }\n", `redirectd.toml:4: [[rule]] #1: when.unless.header: "X A" is not a valid name`},
		{"unless query empty name", rule + "when = { unless = { query = { \"\" = \"1\" } } }\n", `redirectd.toml:4: [[rule]] #1: when.unless.query: "" is not a valid name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": tt.toml, "m.map": "/x /y;\n"})
			_, err := config.Load(file)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(file)+string(filepath.Separator), "")
			if !strings.Contains(msg, tt.want) {
				t.Errorf("error %q\ndoes not contain %q", msg, tt.want)
			}
		})
	}
}

// TestWhenReadmeExample loads the README's example of conditions, with a
// database written by the test in place of the path.
func TestWhenReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../matcher/README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := testutil.FencedBlock(t, string(readme), "## Rules that know for whom: conditions\n", "toml")
	db := geoiptest.Write(t, map[string]string{"127.0.0.0/8": "AT"})
	block = strings.Replace(block, "/var/lib/GeoIP/GeoLite2-Country.mmdb", db, 1)
	cfg, err := config.Load(writeFiles(t, map[string]string{"redirectd.toml": block, "de.map": "/shop /de/shop;\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if n := cfg.Set.Len(); n != 3 {
		t.Errorf("%d rules, want 3", n)
	}
	now := time.Now()
	all := fakeReq{fields: map[string]string{"Accept-Language": "de-CH, en;q=0.5", "X-Device": "mobile", "Cookie": "a=1; lang=fr"}, country: "CH"}
	english := fakeReq{fields: map[string]string{"Accept-Language": "en", "X-Device": "mobile", "Cookie": "lang=fr"}, country: "CH"}
	german := fakeReq{fields: map[string]string{"Accept-Language": "de"}}
	got := []lookupAnswer{
		lookupAt(cfg.Set, "/home", now, all),
		lookupAt(cfg.Set, "/home", now, english),
		lookupAt(cfg.Set, "/home", now, nil),
		lookupAt(cfg.Set, "/shop", now, german),
		lookupAt(cfg.Set, "/shop", now, english),
	}
	want := []lookupAnswer{
		{Status: 301, Location: "https://example.com/de/"},
		{Status: 301, Location: "https://example.com/en/"},
		{Status: 301, Location: "https://example.com/en/"},
		{Status: 301, Location: "/de/shop"},
		{Status: 404},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README conditions example (-want +got):\n%s", diff)
	}
}

// TestGeoIPReadAtEachLoad checks that a database replaced on disk is seen
// by the next load, which is what a reload (SIGHUP, POST /reload) does.
func TestGeoIPReadAtEachLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "country.mmdb")
	file := filepath.Join(dir, "redirectd.toml")
	if err := os.WriteFile(file, []byte("[geoip]\ndatabase = \"country.mmdb\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client := netip.MustParseAddr("127.0.0.1")
	for _, code := range []string{"AT", "DE"} {
		b, err := os.ReadFile(geoiptest.Write(t, map[string]string{"127.0.0.0/8": code}))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Set.Countries().Country(client); got != code {
			t.Errorf("after writing a database of %s, the loaded one says %q", code, got)
		}
	}
}

// TestWhenScheme checks when.scheme: a rule for plain requests and one for
// requests over TLS on the same path, each answering its own, and a
// no-redirect map entry that ends the TLS requests only.
func TestWhenScheme(t *testing.T) {
	cfg, err := config.Load(writeFiles(t, map[string]string{
		"redirectd.toml": "[[rule]]\nfrom = \"/a\"\nto = \"https://example.com/a\"\nwhen = { scheme = \"http\" }\n" +
			"[[rule]]\nfrom = \"/a\"\nto = \"/b\"\nwhen = { scheme = \"https\" }\n" +
			"[[map]]\nfile = \"end.map\"\nwhen = { scheme = \"https\" }\n" +
			"[[rule]]\nmatch = \"prefix\"\nfrom = \"/\"\nto = \"/other\"\n",
		"end.map": "/c \"\";\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	got := []lookupAnswer{
		lookupAt(cfg.Set, "/a", now, fakeReq{}),
		lookupAt(cfg.Set, "/a", now, fakeReq{https: true}),
		lookupAt(cfg.Set, "/c", now, fakeReq{}),
		lookupAt(cfg.Set, "/c", now, fakeReq{https: true}),
	}
	want := []lookupAnswer{
		{Status: 301, Location: "https://example.com/a"},
		{Status: 301, Location: "/b"},
		{Status: 301, Location: "/otherc"},
		{Status: 404},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}
