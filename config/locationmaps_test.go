package config_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher/rewrite"
)

// locationMapsConfig reads two maps, one written inline and one from a
// file in nginx's map syntax.
const locationMapsConfig = `
[[location_map]]
variable = "$moved"
source = "$uri"
file = "r.map"

[[location_map]]
variable = "$lang"
source = "$arg_lang"
default = "en"
entries = '''
de de;
~*^fr fr;
'''

[[location_map]]
variable = "$lower"
source = "$uri"
function = "tolower"

[[location]]
path = "/"
steps = '''
if ($moved) { return 301 $moved; }
if ($uri ~ [A-Z]) { return 301 $lower; }
return 200 $lang;
'''
`

func TestLocationMapsLoad(t *testing.T) {
	cfg, err := loadText(locationMapsConfig, "# moved pages\n/old /new;\n~^/blog/(\\d+)$ /archive/$1;\n")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cfg.Files, "r.map") {
		t.Errorf("Files %q lack r.map, so that a change reloads", cfg.Files)
	}
	hosts := cfg.Set.Locations().(*rewrite.Hosts)
	for _, tt := range []struct{ target, want string }{
		{"/old", "301 /new"}, {"/OLD", "301 /new"}, {"/Some/Page", "301 /some/page"}, {"/blog/12", "301 /archive/12"},
		{"/x", "200 en"}, {"/x?lang=de", "200 de"}, {"/x?lang=FRench", "200 fr"},
	} {
		req := testRequest("example.com", tt.target)
		var s rewrite.Scratch
		var res rewrite.Result
		hosts.Lookup(req.Host, false).Run(&s, req, &res)
		got := string(res.Location)
		if got == "" {
			got = string(res.Body)
		}
		if d := cmp.Diff(tt.want, answerStatus(res.Status)+" "+got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.target, d)
		}
	}
}

func TestLocationMapsErrors(t *testing.T) {
	loc := "[[location]]\npath = \"/\"\nsteps = \"return 200 $m;\"\n"
	tests := []struct{ toml, mapFile, want string }{
		{"[[location_map]]\nvariable = \"$m\"\nsource = \"$uri\"\nentries = '''\n/a /b;\n/c\n'''\n" + loc, "",
			`c.toml:6: [[location_map]] $m: entries: "/c": missing ';' at the end`},
		{"[[location_map]]\nvariable = \"$m\"\nsource = \"$uri\"\nfile = \"r.map\"\n" + loc, "/a /b;\n\n~^(x y;\n",
			"r.map:3: [[location_map]] $m: \"~^(x\": invalid regex \"^(x\": error parsing regexp: missing closing ): `^(x`"},
		{"[[location_map]]\nvariable = \"m\"\nsource = \"$uri\"\n" + loc, "",
			`c.toml:2: [[location_map]] #1: variable: "m": the variable the map sets, with its '$' ("$lang")`},
		{"[[location_map]]\nvariable = \"$m\"\nsource = \"\"\n" + loc, "",
			`c.toml:3: [[location_map]] $m: source: missing; a map looks up a value with variables, such as "$uri"`},
		{"[[location_map]]\nvariable = \"$m\"\nsource = \"$uri\"\nfile = \"none.map\"\n" + loc, "",
			`c.toml:4: [[location_map]] #1: file: cannot read map file: open none.map: file does not exist`},
		{"[[location_map]]\nvariable = \"$m\"\nsource = \"$uri\"\nfiles = \"r.map\"\n" + loc, "",
			`c.toml:4: [[location_map]] #1: files: unknown key; known keys here: variable, source, default, entries, file, function`},
		{"[[location_map]]\nvariable = \"$m\"\nsource = \"$uri\"\nfunction = \"lower\"\n" + loc, "",
			`c.toml:4: [[location_map]] $m: function: "lower": not a function (tolower, toupper, escape, unescape, urlencode)`},
		{"[[location_map]]\nvariable = \"$m\"\nsource = \"$uri\"\nentries = \"/a /b;\"\nfunction = \"tolower\"\n" + loc, "",
			`c.toml:5: [[location_map]] $m: function: a map of a function has no entries and no default`},
		{"[[location_map]]\nvariable = \"$m\"\nsource = \"$uri\"\n", "",
			`c.toml:1: [[location_map]] #1: a map is read by the steps of [[location]] and [[server_rewrite]], and there are none`},
	}
	for _, tt := range tests {
		_, err := loadText(tt.toml, tt.mapFile)
		if err == nil || err.Error() != tt.want {
			t.Errorf("load(%q)\n = %v\nwant %s", tt.toml, err, tt.want)
		}
	}
}

// testRequest is a GET of target on host for a location phase.
func testRequest(host, target string) *rewrite.Request {
	path, query, _ := strings.Cut(target, "?")
	return &rewrite.Request{Host: []byte(host), Target: []byte(target), Path: []byte(path), Query: []byte(query), Method: []byte("GET")}
}

func answerStatus(n int) string { return strconv.Itoa(n) }
