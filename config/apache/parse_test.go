package apache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// brief is a directive as the tests compare it: name, arguments, line
// and the block's directives.
type brief struct {
	Name  string
	Args  []string
	Line  int
	Block []brief
}

func briefs(dirs []*Directive) []brief {
	var out []brief
	for _, d := range dirs {
		out = append(out, brief{d.Name, d.Args, d.Line, briefs(d.Block)})
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []brief
	}{
		{"directive", "Redirect 301 /a http://b/\n", []brief{{"Redirect", []string{"301", "/a", "http://b/"}, 1, nil}}},
		{"comments and blank lines", "# c\n\n  # indented\nRewriteEngine on\n", []brief{{"RewriteEngine", []string{"on"}, 4, nil}}},
		{"continuation", "RewriteRule ^/a$ \\\n    /b [R=301]\n", []brief{{"RewriteRule", []string{"^/a$", "/b", "[R=301]"}, 1, nil}}},
		{"quotes", `RewriteCond %{HTTP_USER_AGENT} "Mozilla 5" [NC]` + "\n" + `Header 'a b' "say \"hi\""`,
			[]brief{{"RewriteCond", []string{"%{HTTP_USER_AGENT}", "Mozilla 5", "[NC]"}, 1, nil}, {"Header", []string{"a b", `say "hi"`}, 2, nil}}},
		{"backslashes outside quotes kept", `RewriteRule ^/a\.html$ /b`, []brief{{"RewriteRule", []string{`^/a\.html$`, "/b"}, 1, nil}}},
		{"sections", "<VirtualHost *:80>\n  ServerName a.test\n  <Directory \"/var/www\">\n    AllowOverride All\n  </Directory>\n</virtualhost>\n",
			[]brief{{"VirtualHost", []string{"*:80"}, 1, []brief{{"ServerName", []string{"a.test"}, 2, nil}, {"Directory", []string{"/var/www"}, 3, []brief{{"AllowOverride", []string{"All"}, 4, nil}}}}}}},
		{"mod_rewrite's own words", `RewriteCond %{THE_REQUEST} ^GET\ /index\.php\ HTTP/ [NC]` + "\n" + `RewriteRule "^a b$" '/c d' [R]`,
			[]brief{{"RewriteCond", []string{"%{THE_REQUEST}", `^GET\ /index\.php\ HTTP/`, "[NC]"}, 1, nil}, {"RewriteRule", []string{"^a b$", "/c d", "[R]"}, 2, nil}}},
		{"a quoted argument alone", `RewriteCond "! -f %{REQUEST_FILENAME}"` + "\n" + `RewriteCond 'x y'  ` + "\n" + `RewriteCond alone`,
			[]brief{{"RewriteCond", []string{"! -f %{REQUEST_FILENAME}", ""}, 1, nil}, {"RewriteCond", []string{"x y", ""}, 2, nil}, {"RewriteCond", []string{"alone"}, 3, nil}}},
		{"a quote left open", "ErrorDocument 404 \"The file was not found.\nHeader 'a\\' b\n", []brief{{"ErrorDocument", []string{"404", "The file was not found."}, 1, nil}, {"Header", []string{"a' b"}, 2, nil}}},
		{"crlf", "Redirect /a /b\r\nRedirect /c /d\r\n", []brief{{"Redirect", []string{"/a", "/b"}, 1, nil}, {"Redirect", []string{"/c", "/d"}, 2, nil}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dirs, err := Parse("t.conf", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, briefs(dirs)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<VirtualHost *:80>\nServerName a\n", "t.conf:1: <VirtualHost> is not closed by </VirtualHost>"},
		{"</Directory>\n", "t.conf:1: </Directory> without its <Directory>"},
		{"<Directory /a>\n</Location>\n", "t.conf:2: </Location> without its <Location>"},
		{"<VirtualHost *:80\n", "t.conf:1: a section's opening line lacks its '>'"},
		{"<>\n</>\n", "t.conf:1: a section needs a name"},
	}
	for _, tc := range tests {
		_, err := Parse("t.conf", []byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: got %v, want %s", tc.in, err, tc.want)
		}
	}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseFileIncludes(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, dir, map[string]string{
		"apache2.conf":          "Redirect /main /m\nInclude sites-enabled/*.conf\nIncludeOptional conf-enabled/*.conf\nIncludeOptional missing.conf\n",
		"sites-enabled/b.conf":  "<VirtualHost *:80>\nInclude snippets/r.conf\n</VirtualHost>\n",
		"sites-enabled/a.conf":  "Redirect /a /aa\n",
		"snippets/r.conf":       "Redirect /r /rr\n",
		"loop/self.conf":        "Include self.conf\n",
		"escape.conf":           "Include " + filepath.Join(outside, "x.conf") + "\n",
		"missing.conf.d/x":      "",
		"required-missing.conf": "Include nothere.conf\n",
		"syntax/main.conf":      "Include bad.conf\n",
		"syntax/bad.conf":       "<Directory /a>\nsecret line\n",
	})
	writeTree(t, outside, map[string]string{"x.conf": "Redirect /x /y\n"})
	dirs, err := ParseFile(filepath.Join(dir, "apache2.conf"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func([]*Directive)
	walk = func(ds []*Directive) {
		for _, d := range ds {
			got = append(got, filepath.Base(d.File)+":"+d.Name+" "+strings.Join(d.Args, " "))
			walk(d.Block)
		}
	}
	walk(dirs)
	want := []string{"apache2.conf:Redirect /main /m", "a.conf:Redirect /a /aa", "b.conf:VirtualHost *:80", "r.conf:Redirect /r /rr"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	errs := map[string]string{
		"loop/self.conf":        "loop/self.conf:1: " + filepath.Join(dir, "loop/self.conf") + " includes itself",
		"escape.conf":           "escape.conf:1: Include \"" + filepath.Join(outside, "x.conf") + "\": outside the folders the import reads (add -include-dir)",
		"required-missing.conf": "required-missing.conf:1: Include \"nothere.conf\": no such file",
		"syntax/main.conf":      "syntax/bad.conf:1: syntax error in an included file",
	}
	for name, want := range errs {
		// A file is read from its own folder: the tree's root for these.
		_, err := ParseFile(filepath.Join(dir, name), dir)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: got %v, want ...%s", name, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error quotes an included file: %v", name, err)
		}
	}
	if _, err := ParseFile(filepath.Join(dir, "escape.conf"), outside); err != nil {
		t.Errorf("an -include-dir folder is read: %v", err)
	}
}
