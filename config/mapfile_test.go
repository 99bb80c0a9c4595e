package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/matcher"
)

// TestMapFileNginx loads a map written as sites write them for nginx and
// checks each entry as nginx reads it: escapes kept in regexes (`\)`),
// `~*`, a leading backslash dropped from an exact key, "" as an explicit
// no-redirect entry, volatile and default "" accepted.
func TestMapFileNginx(t *testing.T) {
	data, err := os.ReadFile("testdata/handwritten.map")
	if err != nil {
		t.Fatal(err)
	}
	file := writeFiles(t, map[string]string{
		"redirectd.toml":  "[[map]]\nfile = \"handwritten.map\"\n",
		"handwritten.map": string(data),
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(filepath.Dir(file), "handwritten.map")
	want := []matcher.Rule{
		{Kind: matcher.Regex, From: `^/Definition.hs$`, To: "/static/build/Definition.hs", Status: 301, File: m, Line: 8},
		{Kind: matcher.Regex, From: `^/doc/iq/2015-strenze.pdf.*$`, To: "/doc/iq/2015-strenze.pdf", Status: 301, File: m, Line: 9},
		{Kind: matcher.Regex, From: `^/GPT-3\).*$`, To: "/gpt-3", Status: 301, File: m, Line: 10},
		{Kind: matcher.Regex, From: `(?i)^/About$`, To: "/about", Status: 301, File: m, Line: 11},
		{Kind: matcher.Regex, From: `^/tag/(.*)$`, To: "/tags/$1", Status: 301, File: m, Line: 12},
		{Kind: matcher.Regex, From: `^/a{2}$`, To: "/double-a", Status: 301, File: m, Line: 13},
		{Kind: matcher.Exact, From: "/old essay", To: "/essay", Status: 301, File: m, Line: 16},
		{Kind: matcher.Exact, From: "/old-page", To: "/new-page", Status: 301, File: m, Line: 17},
		{Kind: matcher.Exact, From: "/escaped", To: "/unescaped", Status: 301, File: m, Line: 18},
		{Kind: matcher.Exact, From: "/doc/iq/2015-strenze.pdf-keep", Pass: true, File: m, Line: 21},
		{Kind: matcher.Regex, From: `^/private/.*$`, Pass: true, File: m, Line: 22},
	}
	got := cfg.Set.Rules()
	for i := range got {
		if got[i].Pass {
			got[i].QueryString = 0 // unused by a no-redirect entry
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		path   string
		to     string // "" for a miss
		passed int    // the line of the no-redirect entry that decided a miss
	}{
		{path: "/GPT-3)-paper", to: "/gpt-3"},
		{path: "/GPT-3", to: ""},
		{path: "/Definition.hs", to: "/static/build/Definition.hs"},
		{path: "/DefinitionXhs", to: "/static/build/Definition.hs"}, // nginx's unescaped dot
		{path: "/ABOUT", to: "/about"},
		{path: "/tag/go", to: "/tags/go"},
		{path: "/aa", to: "/double-a"},
		{path: "/doc/iq/2015-strenze.pdf-keep", passed: 21},
		{path: "/doc/iq/2015-strenze.pdf-other", to: "/doc/iq/2015-strenze.pdf"},
		{path: "/private/x", passed: 22},
	} {
		var mt matcher.Match
		hit := cfg.Set.Lookup(nil, []byte(tt.path), nil, &mt)
		got := ""
		if hit {
			got = string(mt.AppendLocation(nil, nil))
		}
		passed := 0
		if r := mt.Passed(); r != nil {
			passed = r.Line
		}
		if got != tt.to || passed != tt.passed || hit != (tt.to != "") {
			t.Errorf("%s: hit %v Location %q passed at line %d, want Location %q passed at line %d", tt.path, hit, got, passed, tt.to, tt.passed)
		}
	}
}

// TestMapFileErrors checks what a [[map]] refuses, each error naming the
// file, the line and what is wrong; with invalid = "skip" the same entries
// are left out and listed, and the rest of the map serves.
func TestMapFileErrors(t *testing.T) {
	tests := []struct {
		name    string
		toml    string // after [[map]] file = "r.map"
		mapFile string
		want    string // the error with invalid = "error"
	}{
		{"three words", "", "/a /b;\n\n/c /d /e;\n", "r.map:3: an entry is `from to;`, this one has 3 words"},
		{"one word", "", "/a;\n", "r.map:1: the entry \"/a\" has no target: write where it redirects before the ';'"},
		{"no semicolon", "", "/a /b;\n/c /d\n", "r.map:2: entry does not end with ';'"},
		{"bad regex", "", "/ok /x;\n~^/(a /y;\n", "r.map:2: from: cannot compile regex"},
		{"bad target", "", "/a \"/b\tc\";\n", "r.map:1: to:"},
		{"not a path", "", "a /b;\n", "r.map:1: from: \"a\" must be a path starting with '/'"},
		{"duplicate regex-free key", "match = \"prefix\"\n", "/a/ /b;\n/a/ /c;\n", "r.map:2: from: duplicate"},
		{"unquoted brace", "", "/ok /x;\n~^/a{2}$ /y;\n", "r.map:2: unexpected '{': a map file holds the entries of nginx's map block, without braces; quote a word that holds '{'"},
		{"closing brace", "", "/ok /x;\n}\n/a /b;\n", "r.map:2: unexpected '}'"},
		{"text after a quote", "", "\"/a\"/b /c;\n", "r.map:1: unexpected '/' after a quoted word"},
		{"default with a target", "", "default /home;\n", `r.map:1: nginx's "default" has no place in a [[map]] file: a miss is answered 404 or forwarded to [upstream]; to send every other path to "/home", add a [[rule]] with match = "prefix"`},
		{"default quoted", "", "\"default\" /home;\n", `r.map:1: nginx's "default" has no place`},
		{"include", "", "include more.map;\n", `r.map:1: nginx's "include" has no place in a [[map]] file (its path would be relative to nginx's folder); give "more.map" a [[map]] of its own`},
		{"hostnames", "", "hostnames;\n/a /b;\n", `r.map:1: nginx's "hostnames" makes the keys host names, but a [[map]] file's keys are paths; give the hosts with host in [[map]]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"redirectd.toml": "[[map]]\nfile = \"r.map\"\n" + tt.toml, "r.map": tt.mapFile}
			file := writeFiles(t, files)
			_, err := config.Load(file)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if msg := strings.ReplaceAll(err.Error(), filepath.Dir(file)+string(filepath.Separator), ""); !strings.Contains(msg, tt.want) {
				t.Errorf("error %q\ndoes not contain %q", msg, tt.want)
			}

			// With invalid = "skip": one entry left out, the same message.
			// The good entry goes first, on line 1, so that the lines stay.
			files["redirectd.toml"] += "invalid = \"skip\"\n"
			files["r.map"] = "/good /served; " + files["r.map"]
			file = writeFiles(t, files)
			cfg, err := config.Load(file)
			if err != nil {
				t.Fatalf("with invalid = \"skip\": %v", err)
			}
			if cfg.SkippedEntries != 1 || len(cfg.Skipped) != 1 {
				t.Fatalf("skipped %d (%v), want 1", cfg.SkippedEntries, cfg.Skipped)
			}
			if msg := strings.ReplaceAll(cfg.Skipped[0].Error(), filepath.Dir(file)+string(filepath.Separator), ""); !strings.Contains(msg, tt.want) {
				t.Errorf("skipped %q\ndoes not contain %q", msg, tt.want)
			}
			var m matcher.Match
			if !cfg.Set.Lookup(nil, []byte("/good"), nil, &m) {
				t.Errorf("the rest of the map does not serve")
			}
		})
	}
}

// TestMapSkipHosts checks that an entry refused once per host of its
// [[map]] is skipped once, that the count goes past what is listed, and
// that an unclosed quote is an error even with invalid = "skip": the rest
// of the file would be lost without a word.
func TestMapSkipHosts(t *testing.T) {
	var b strings.Builder
	for range config.MaxSkipped + 5 {
		b.WriteString("~^/(x /y;\n")
	}
	b.WriteString("/ok /fine;\n")
	file := writeFiles(t, map[string]string{
		"redirectd.toml": "[[map]]\nfile = \"r.map\"\nhost = [\"a.example\", \"b.example\"]\ninvalid = \"skip\"\n",
		"r.map":          b.String(),
	})
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SkippedEntries != config.MaxSkipped+5 || len(cfg.Skipped) != config.MaxSkipped || cfg.Skipped[1].Line != 2 {
		t.Errorf("skipped %d, listed %d (second at line %d)", cfg.SkippedEntries, len(cfg.Skipped), cfg.Skipped[1].Line)
	}
	if cfg.Set.Len() != 2 {
		t.Errorf("%d rules, want /ok for each host", cfg.Set.Len())
	}

	file = writeFiles(t, map[string]string{
		"redirectd.toml": "[[map]]\nfile = \"r.map\"\ninvalid = \"skip\"\n",
		"r.map":          "/a /b;\n\"/c /d;\n/e /f;\n",
	})
	if _, err := config.Load(file); err == nil || !strings.Contains(err.Error(), "r.map:2: quoted word not closed") {
		t.Errorf("unclosed quote with invalid = \"skip\": %v", err)
	}
}

// TestMapOptions checks request_uri and invalid in [[map]] and [[rule]].
func TestMapOptions(t *testing.T) {
	tests := []struct {
		name, toml string
		want       string // an error; "" for none
	}{
		{"map request_uri", "[[map]]\nfile = \"r.map\"\nrequest_uri = true\n", ""},
		{"rule request_uri", "[[rule]]\nfrom = \"/a?x=1\"\nto = \"/b\"\nrequest_uri = true\n", ""},
		{"map request_uri with prefix", "[[map]]\nfile = \"r.map\"\nmatch = \"prefix\"\n\nrequest_uri = true\n",
			"redirectd.toml:5: [[map]] #1: request_uri: true compares from with the path and query as sent, which prefix rules cannot do"},
		{"rule request_uri with prefix", "[[rule]]\nmatch = \"prefix\"\nfrom = \"/a\"\nto = \"/b\"\nrequest_uri = true\n",
			"redirectd.toml:5: [[rule]] #1: request_uri: true compares from with the path and query as sent"},
		{"request_uri not a boolean", "[[map]]\nfile = \"r.map\"\nrequest_uri = \"yes\"\n",
			"redirectd.toml:3: [[map]] #1: request_uri: must be true or false, not a string"},
		{"invalid unknown", "[[map]]\nfile = \"r.map\"\ninvalid = \"ignore\"\n",
			`redirectd.toml:3: [[map]] #1: invalid: "ignore" is not a choice; use "error" (a bad entry is an error of the config) or "skip" (it is left out and logged)`},
		{"invalid on a rule", "[[rule]]\nfrom = \"/a\"\nto = \"/b\"\ninvalid = \"skip\"\n",
			"redirectd.toml:4: [[rule]] #1: invalid: unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFiles(t, map[string]string{"redirectd.toml": tt.toml, "r.map": "/a?x=1 /b;\n~^/c\\?y=(\\d+)$ /d/$1;\n"})
			cfg, err := config.Load(file)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range cfg.Set.Rules() {
					if !r.RequestURI {
						t.Errorf("rule %s has no RequestURI", r.Source())
					}
				}
				return
			}
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if msg := strings.ReplaceAll(err.Error(), filepath.Dir(file)+string(filepath.Separator), ""); !strings.Contains(msg, tt.want) {
				t.Errorf("error %q\ndoes not contain %q", msg, tt.want)
			}
		})
	}
}
