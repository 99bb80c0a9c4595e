package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestPCRERegexes loads regexes RE2 refuses from a [[rule]] and from a
// map file's `~` and `~*` keys, as sites write them for nginx, and checks
// the answers: they run as PCRE, in file order with the others. A regex
// neither accepts is an error naming file, line and key.
func TestPCRERegexes(t *testing.T) {
	file := writeFiles(t, map[string]string{
		"redirectd.toml": `
[[rule]]
match = "regex"
from = '^/docs/(?!(v\d|latest)/)(.+)'
to = "/docs/v2/$2"
status = 302

[[map]]
file = "site.map"
`,
		"site.map": `~^(.*)/usage(?=/|$)/?$   $1/usage/overview.html;
~*^/(?<x>[a-z]+)/\k<x>$   /twice/$x;
~^/docs/(.*)$             /re2/$1;
`,
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/docs/guide/intro", "/docs/v2/guide/intro"},
		{"/docs/v1/intro", "/re2/v1/intro"},
		{"/a/usage/", "/a/usage/overview.html"},
		{"/Ab/aB", "/twice/Ab"},
		{"/ab/ac", ""},
	} {
		var m matcher.Match
		got := ""
		if cfg.Set.Lookup(nil, []byte(c.path), nil, &m) {
			got = string(m.AppendLocation(nil, nil))
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Lookup(%q) (-want +got):\n%s", c.path, diff)
		}
	}

	bad := writeFiles(t, map[string]string{"redirectd.toml": `
[[rule]]
match = "regex"
from = '^/(?<=a+)b'
to = "/b"
`})
	_, err = config.Load(bad)
	if want := "redirectd.toml:4: [[rule]] #1: from: cannot compile regex \"^/(?<=a+)b\": pcre: lookbehind assertion is not fixed length at offset 2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load error = %v, want it to contain %q", err, want)
	}
}
