package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, src string
		want      []*Directive
		err       string
	}{
		{"simple", "a b c;\n", []*Directive{{Name: "a", Args: []string{"b", "c"}, Line: 1}}, ""},
		{"block", "server {\n  listen 80;\n  location = /x { return 301 /y; }\n}\n", []*Directive{{Name: "server", IsBlock: true, Line: 1, Block: []*Directive{
			{Name: "listen", Args: []string{"80"}, Line: 2},
			{Name: "location", Args: []string{"=", "/x"}, IsBlock: true, Line: 3, Block: []*Directive{{Name: "return", Args: []string{"301", "/y"}, Line: 3}}},
		}}}, ""},
		{"quotes and escapes", `return 301 "a b\"c" 'd;e' x\\y \d;`, []*Directive{{Name: "return", Args: []string{"301", `a b"c`, "d;e", `x\y`, `\d`}, Line: 1}}, ""},
		{"comments", "# top\na 1; # after\n#b 2;\n", []*Directive{{Name: "a", Args: []string{"1"}, Line: 2}}, ""},
		{"variable braces", "return 301 ${scheme}://x${uri}y;", []*Directive{{Name: "return", Args: []string{"301", "${scheme}://x${uri}y"}, Line: 1}}, ""},
		{"if parentheses", `if ($a != "") { return 301 $a; }`, []*Directive{{Name: "if", Args: []string{"($a", "!=", "", ")"}, IsBlock: true, Line: 1,
			Block: []*Directive{{Name: "return", Args: []string{"301", "$a"}, Line: 1}}}}, ""},
		{"multi-line quote", "a \"x\ny\";\nb;", []*Directive{{Name: "a", Args: []string{"x\ny"}, Line: 1}, {Name: "b", Line: 3}}, ""},
		{"unterminated directive", "a b", nil, "t.conf:1: directive \"a\" does not end with ';' or '{'"},
		{"unclosed block", "server {\n a;\n", nil, "t.conf:3: unexpected end of file: a block is not closed with '}'"},
		{"stray close", "a;\n}\n", nil, "t.conf:2: unexpected '}' with no block open"},
		{"unclosed quote", "a;\nb \"c;\n", nil, "t.conf:2: quoted word not closed"},
		{"text after quote", `a "b"c;`, nil, "t.conf:1: unexpected 'c' after a quoted word"},
		{"brace after quote, as nginx", "server { return 301 \"/a\"}", nil, "t.conf:1: unexpected '}' after a quoted word"},
		{"regex escapes kept, as nginx", `map $uri $m { "~^/GPT-3\).*$" "/gpt-3"; ~^/a\.b$ /c; }`, []*Directive{{Name: "map", Args: []string{"$uri", "$m"}, IsBlock: true, Line: 1,
			Block: []*Directive{{Name: `~^/GPT-3\).*$`, Args: []string{"/gpt-3"}, Line: 1}, {Name: `~^/a\.b$`, Args: []string{"/c"}, Line: 1}}}}, ""},
		{"brace inside a word, as nginx", "a b}c;", []*Directive{{Name: "a", Args: []string{"b}c"}, Line: 1}}, ""},
		{"hash inside a word, as nginx", "a b#c;", []*Directive{{Name: "a", Args: []string{"b#c"}, Line: 1}}, ""},
		{"semicolon alone", ";", nil, "t.conf:1: unexpected ';' with no directive before it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("t.conf", []byte(tt.src))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Directive{}, "File"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFileIncludes(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"nginx.conf":         "http {\n  include conf.d/*.conf;\n  include none/*.conf;\n}\n",
		"conf.d/a.conf":      "server { include snippets/r.conf; }\n",
		"conf.d/b.conf":      "map $uri $x { }\n",
		"snippets/r.conf":    "return 301 /x;\n",
		"loop/nginx.conf":    "include nginx.conf;\n",
		"missing/nginx.conf": "include nope.conf;\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	got, err := ParseFile(filepath.Join(dir, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	// Includes are taken from the main file's folder at every depth, in
	// name order; a glob matching nothing is no error.
	http := got[0].Block
	if len(http) != 2 || http[0].Name != "server" || http[1].Name != "map" {
		t.Fatalf("http block: %+v", http)
	}
	ret := http[0].Block[0]
	if ret.Name != "return" || ret.File != filepath.Join(dir, "snippets/r.conf") || ret.Line != 1 {
		t.Errorf("included return: %+v", ret)
	}
	loop := filepath.Join(dir, "loop/nginx.conf")
	if _, err := ParseFile(loop); err == nil || err.Error() != loop+`:1: include "nginx.conf" makes a cycle: `+loop+":1 -> "+loop {
		t.Errorf("include loop: %v", err)
	}
	if _, err := ParseFile(filepath.Join(dir, "missing/nginx.conf")); err == nil || !strings.Contains(err.Error(), "missing/nginx.conf:1: include \"nope.conf\": no such file") {
		t.Errorf("missing include: %v", err)
	}
}

// TestParseFileIncludeCycles checks that a cycle is named with the line of
// each include in it, however long it is and whether a glob or a name
// closes it (it was "includes nest deeper than 16").
func TestParseFileIncludeCycles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"glob/nginx.conf":      "http {\n  include conf.d/*.conf;\n}\n",
		"glob/conf.d/a.conf":   "server {\n  listen 80;\n  include conf.d/*.conf;\n}\n",
		"pair/nginx.conf":      "include a.conf;\n",
		"pair/a.conf":          "# a\n\ninclude b.conf;\n",
		"pair/b.conf":          "return 301 /x;\ninclude a.conf;\n",
		"back/nginx.conf":      "http {\n  include sites/*.conf;\n}\n",
		"back/sites/site.conf": "server { include nginx.conf; }\n",
	})
	in := func(p string) string { return filepath.Join(dir, p) }
	tests := []struct{ name, main, want string }{
		{"file including its own folder's glob", "glob/nginx.conf",
			in("glob/conf.d/a.conf") + `:3: include "conf.d/*.conf" makes a cycle: ` +
				in("glob/conf.d/a.conf") + ":3 -> " + in("glob/conf.d/a.conf")},
		{"two files", "pair/nginx.conf",
			in("pair/b.conf") + `:2: include "a.conf" makes a cycle: ` +
				in("pair/a.conf") + ":3 -> " + in("pair/b.conf") + ":2 -> " + in("pair/a.conf")},
		{"back to the main file", "back/nginx.conf",
			in("back/sites/site.conf") + `:1: include "nginx.conf" makes a cycle: ` +
				in("back/nginx.conf") + ":2 -> " + in("back/sites/site.conf") + ":1 -> " + in("back/nginx.conf")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFile(in(tc.main))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant\n%s", err, tc.want)
			}
		})
	}
}

// TestParseFileIncludedOnce checks that a file included at many places is
// parsed once (the same directives at each place), and that a chain of
// includes deeper than the old limit of 16 but without a cycle is read.
func TestParseFileIncludedOnce(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"nginx.conf":      "http {\n" + strings.Repeat("  server { include snippets/r.conf; }\n", 50) + "  include chain/0.conf;\n}\n",
		"snippets/r.conf": "return 301 /x;\n",
	}
	const depth = 40
	for i := 0; i < depth; i++ {
		files[fmt.Sprintf("chain/%d.conf", i)] = fmt.Sprintf("include chain/%d.conf;\n", i+1)
	}
	files[fmt.Sprintf("chain/%d.conf", depth)] = "map $uri $end { }\n"
	writeTree(t, dir, files)
	got, err := ParseFile(filepath.Join(dir, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	http := got[0].Block
	if len(http) != 51 || http[50].Name != "map" || http[50].Args[1] != "$end" {
		t.Fatalf("http block: %d directives, last %+v", len(http), http[len(http)-1])
	}
	first := http[0].Block[0]
	for i, s := range http[:50] {
		if len(s.Block) != 1 || s.Block[0] != first {
			t.Fatalf("server %d: %+v, want the one parse of r.conf", i, s.Block)
		}
	}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestParseFileIncludeFanOut: files that each include the next twice would
// expand to 2^30 copies; the expansion is refused at the include that
// crosses the bound, naming it, and a file too large to read is refused by
// its size before it is read.
func TestParseFileIncludeFanOut(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"nginx.conf": "http {\n  include f0.conf;\n}\n"}
	const n = 30
	for i := range n {
		files[fmt.Sprintf("f%d.conf", i)] = fmt.Sprintf("include f%d.conf;\ninclude f%d.conf;\n", i+1, i+1)
	}
	files[fmt.Sprintf("f%d.conf", n)] = "return 301 /x;\n"
	writeTree(t, dir, files)
	_, err := ParseFile(filepath.Join(dir, "nginx.conf"))
	if err == nil || !strings.Contains(err.Error(), "directives (a file included at many places counts at each)") || !regexp.MustCompile(`/f\d+\.conf:[12]: include "f\d+\.conf"`).MatchString(err.Error()) {
		t.Fatalf("fan-out: %v, want the include that crossed the bound", err)
	}

	big := filepath.Join(dir, "big.conf")
	writeTree(t, dir, map[string]string{"main.conf": "include big.conf;\n"})
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(big, maxReadBytes+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	_, err = ParseFile(filepath.Join(dir, "main.conf"))
	if err == nil || !strings.Contains(err.Error(), "main.conf:1: include \"big.conf\": "+big+" is not read: reading it would take the files read past 256 MiB") {
		t.Fatalf("large file: %v", err)
	}
}
