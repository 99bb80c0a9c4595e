package nginx

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
)

// TestQuoteArg: an argument written by quoteArg reads back, through the
// parser that reads nginx's files, as it was.
func TestQuoteArg(t *testing.T) {
	for _, a := range []string{"^/docs/(?<v>v\\d+)/(.*)$", "a b", "x;y", "{2}", `say "hi"`, `back\slash`, "", "#frag", "it's", `\"`, "$1/usage"} {
		checkQuoteArg(t, a)
	}
}

func checkQuoteArg(t *testing.T, a string) {
	t.Helper()
	src := "rewrite " + quoteArg(a) + " /b;"
	dirs, err := Parse("t.conf", []byte(src))
	if err != nil {
		t.Fatalf("%q written as %s: %v", a, src, err)
	}
	if diff := cmp.Diff([]string{a, "/b"}, dirs[0].Args); diff != "" {
		t.Errorf("%q written as %s reads back (-want +got):\n%s", a, src, diff)
	}
}

// FuzzQuoteArg checks quoteArg's round trip on arbitrary arguments.
func FuzzQuoteArg(f *testing.F) {
	for _, a := range []string{"a b", `\`, `"`, "x\\;", "é"} {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, a string) {
		if strings.ContainsAny(a, "\x00") {
			return
		}
		checkQuoteArg(t, a)
	})
}

// TestStructuralTables: what a server written as the location model
// becomes, table by table.
func TestStructuralTables(t *testing.T) {
	dirs, err := Parse("t.conf", []byte(`server {
		server_name a.test;
		rewrite ^/s$ /t last;
		location /p/ {
			rewrite ^(.*)/x$ $1/y redirect;
			location ~ \.pdf$ { return 404; }
			proxy_pass http://127.0.0.1:9/new/;
		}
		location = /e { return 200 "a b"; }
	}`))
	if err != nil {
		t.Fatal(err)
	}
	res := Translate(dirs)
	if len(res.Structural) != 1 {
		t.Fatalf("not written as locations: %q", res.Paths)
	}
	var b strings.Builder
	writeStructural(&b, res, nil)
	for _, want := range []string{
		"[rules.defaults]\nuri = \"nginx\"\n",
		"[server]\nabsolute_redirect = true\n",
		"[[server_rewrite]]\nsteps = '''\nrewrite ^/s$ /t last;\n'''\n",
		"[[location]]\nmatch = \"prefix\"\npath = '/p/'\nsteps = '''\nrewrite ^(.*)/x$ $1/y redirect;\n'''\nupstream = '127-0-0-1-9'\nupstream_uri = '/new/'\n",
		"[[location.location]]\nmatch = \"regex\"\npath = '\\.pdf$'\nsteps = '''\nreturn 404;\n'''\n",
		"[[location]]\nmatch = \"exact\"\npath = '/e'\nsteps = '''\nreturn 200 \"a b\";\n'''\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks:\n%s\nin:\n%s", want, b.String())
		}
	}
}

// TestStructuralWhy: what each server becomes, what is left out of it
// and why, and the settings the tables bring.
func TestStructuralWhy(t *testing.T) {
	tests := []struct {
		name, conf string
		structural bool
		paths      string // part of the server's line
		written    string // part of what writeStructural writes
		note       string // part of a note, if any
	}{
		{"merge_slashes off", "http { merge_slashes off; server { server_name a.test; location / { rewrite ^/a$ /b last; } } }", true, "tables (1 locations)", "uri = \"nginx\"\nmerge_slashes = false\n", ""},
		{"error_page 404", "server { server_name a.test; error_page 404 /e; location / { rewrite ^/a$ /b last; } }", true, "tables (1 locations)", "steps = '''\nerror_page 404 /e;\n", ""},
		{"error_page inside if", "server { server_name a.test; location / { if ($arg_a) { error_page 404 /e; } rewrite ^/a$ /b last; } }", true, "tables (1 locations)", "if ($arg_a) {\n}\nrewrite ^/a$ /b last;", "error_page inside if: redirectd's locations run rewrite, return, set and break in an if, so nginx's conditional error page is left out"},
		{"error_page 502 to a named location", "server { server_name a.test; error_page 502 @x; location @x { return 502; } location / { rewrite ^/a$ /b last; } }", true, "tables (2 locations)", "match = \"named\"\npath = 'x'", ""},
		{"error_page 404 on a proxy's errors", "server { server_name a.test; location / { proxy_pass http://127.0.0.1:9; proxy_intercept_errors on; error_page 404 = @nf; } location @nf { return 302 /s; } }", true, "tables (2 locations)", "intercept_errors = true", ""},
		{"try_files", "server { server_name a.test; location / { try_files $uri /i; rewrite ^/a$ /b last; } }", true, "tables (1 locations)", "rewrite ^/a$ /b last;", ""},
		{"try_files inside if", "server { server_name a.test; location / { if ($arg_a) { try_files $uri /i; } rewrite ^/a$ /b last; } }", true, "tables (1 locations)", "rewrite ^/a$ /b last;", "try_files inside if: redirectd's locations run rewrite, return, set and break in an if; this one has no effect"},
		{"a map key with a space", "map $uri $m { \"~^/a $\" /b; } server { server_name a.test; set $x $m; location / { rewrite ^/a$ /b last; } }", true, "tables (1 locations)",
			"entries = '''\n\"~^/a $\" /b;\n'''", ""},
		{"a map variable in a step", "map $uri $m { /a /b; } server { server_name a.test; set $x $m; location / { rewrite ^/a$ /b last; } }", true, "tables (1 locations)",
			"[[location_map]]\nsource = '$uri'\nvariable = '$m'\nentries = '''\n/a /b;\n'''", ""},
		{"absolute_redirect off", "server { server_name a.test; absolute_redirect off; location / { rewrite ^/a$ /b last; } }", true, "tables (1 locations)", "uri = \"nginx\"\n\n#", ""},
		{"port_in_redirect off", "server { server_name a.test; port_in_redirect off; location / { rewrite ^/a$ /b last; } }", true, "tables (1 locations)", "absolute_redirect = true", "port_in_redirect off: redirectd writes a Location as nginx does by default"},
		{"proxy_pass inside if", "server { server_name a.test; location / { if ($arg_a) { proxy_pass http://127.0.0.1:9; } rewrite ^/a$ /b last; } }", true, "tables (1 locations)", "rewrite ^/a$ /b last;", "proxy_pass inside if: redirectd's locations run rewrite, return, set and break in an if, so nginx's conditional forward is left out"},
		{"a wildcard name, the default server", "server { server_name a.test *.a.test; location / { rewrite ^/a$ /b last; } } server { server_name c.test; }", true, "server a.test *.a.test: [[server_rewrite]]",
			"host = 'a.test'\ndefault_server = true\n", ""},
		{"a regex name", "server { server_name c.test; } server { server_name ~^a www.a.*; location / { rewrite ^/a$ /b last; } }", true, "server c.test: [[server_rewrite]]",
			"hosts = ['~^a', 'www.a.*']", ""},
		{"a regex name, the default server", "server { server_name ~^a; location / { rewrite ^/a$ /b last; } } server { server_name c.test; }", true, "tables (1 locations)", "host = '~^a'\ndefault_server = true\n", ""},
		{"a name with a variable", "server { server_name $x; location / { rewrite ^/a$ /b last; } } server { server_name c.test; }", true, "tables (1 locations)", "host = '_'\ndefault_server = true\n", ""},
		{"no name, not the default server", "server { server_name c.test; } server { location / { rewrite ^/a$ /b last; } }", true, "server: left out, it has no server_name a host can match", "", "has no server_name a request's host can match and is not the default server: nginx sends it only requests without a Host; left out"},
		{"every name an earlier server's", "server { server_name c.test; } server { server_name c.test; location / { rewrite ^/a$ /b last; } }", true, "server c.test: left out, nginx never chooses it", "", "server_name: every name of this server is an earlier server's"},
		{"a variable the model has not", "server { server_name a.test; location / { return 301 /x$remote_addr; } location /k { return 301 /k2; } }", true, "tables (2 locations)", "path = '/k'", "return 301 /x$remote_addr: redirectd's location model refuses it"},
		{"plain and TLS servers", "server { listen 80; server_name a.test; location / { rewrite ^/a$ /b last; } } server { listen 443 ssl; server_name b.test; }", true, "tables (1 locations)",
			"host = 'a.test'\nscheme = \"http\"\ndefault_server = true\n", ""},
		{"a server on both kinds of port, the default on one", "server { listen 80; listen 443 ssl; server_name a.test; location / { rewrite ^/a$ /b last; } } server { listen 443 ssl default_server; server_name b.test; }", true, "tables (1 locations)",
			"host = 'a.test'\nscheme = \"http\"\ndefault_server = true\n\n# t.conf:1: location /\n[[location]]\nhosts = ['a.test']\nmatch", ""},
		{"a regex location the PCRE engine does not run", "server { server_name a.test; location ~ ^/(a(?1)?b)$ { return 301 /x; } location /k { return 301 /k2; } }", true, "tables (1 locations)", "path = '/k'", "its redirects are left out"},
		{"a map line the model refuses", "map $uri $m { /a /b; ~^/(a(?1)?b)$ /c; } server { server_name a.test; if ($m) { return 301 $m; } }", true, "tables (0 locations)", "entries = '''\n/a /b;\n'''", "map entry ~^/(a(?1)?b)$: redirectd's location model refuses it"},
		{"a map whose source the model has not", "map $status $m { 404 /b; } server { server_name a.test; if ($m) { return 301 $m; } location /k { return 301 /k2; } }", true, "tables (1 locations)", "path = '/k'", "map $status $m: redirectd's location model refuses it"},
		{"try_files to a URI", "server { server_name a.test; location / { try_files $uri $uri/ /index.php?$args; } location ~ \\.php$ { proxy_pass http://127.0.0.1:9; } }", true, "tables (2 locations)", "steps = '''\ntry_files $uri $uri/ /index.php?$args;\n'''", "redirectd has no files, so it takes the fallback /index.php?$args for every request"},
		{"deny all", "server { server_name a.test; location ~ /\\.ht { deny all; } location / { return 301 /x; } }", true, "tables (2 locations)", "steps = '''\nreturn 403;\n'''", ""},
		{"deny by address", "server { server_name a.test; location /admin/ { allow 10.0.0.0/8; deny all; } location / { return 301 /x; } }", true, "tables (2 locations)", "path = '/admin/'", "allow 10.0.0.0/8: nginx decides by the client's address here"},
		{"try_files to a named location that rewrites", "server { server_name a.test; location / { try_files $uri @rewrite; } location @rewrite { rewrite ^/(.*)$ /index.php?q=$1; } location ~ \\.php$ { proxy_pass http://127.0.0.1:9; } }", true, "tables (3 locations)", "steps = '''\ntry_files $uri @rewrite;\n'''", "redirectd has no files, so it takes the fallback @rewrite for every request"},
		{"internal", "server { server_name a.test; location = /404.html { internal; } location / { return 301 /x; } }", true, "tables (2 locations)", "path = '/404.html'\nsteps = '''\ninternal;\n'''", ""},
		{"allow all", "server { server_name a.test; location /.well-known/ { allow all; deny 10.0.0.1; } location / { return 301 /x; } }", true, "tables (2 locations)", "path = '/.well-known/'\n\n", ""},
		{"deny all after break", "server { server_name a.test; location /a/ { rewrite ^ /b break; deny all; } location / { return 301 /x; } }", true, "tables (2 locations)", "rewrite ^ /b break;", "deny all: nginx answers 403 after this location's steps, which can stop early here; left out"},
		{"a server of returns", "server { server_name a.test; location / { return 301 /x; } }", true, "tables (1 locations)", "steps = '''\nreturn 301 /x;\n'''", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dirs, err := Parse("t.conf", []byte(tt.conf))
			if err != nil {
				t.Fatal(err)
			}
			res := Translate(dirs)
			if got := len(res.Structural) > 0; got != tt.structural {
				t.Errorf("structural = %v, want %v; paths %q", got, tt.structural, res.Paths)
			}
			if !strings.Contains(strings.Join(res.Paths, "\n"), tt.paths) {
				t.Errorf("paths %q lack %q", res.Paths, tt.paths)
			}
			var b strings.Builder
			writeStructural(&b, res, nil)
			if !strings.Contains(b.String(), tt.written) {
				t.Errorf("written lacks %q:\n%s", tt.written, b.String())
			}
			if tt.note != "" && !slices.ContainsFunc(res.Notes, func(n Note) bool { return strings.Contains(n.Msg, tt.note) }) {
				t.Errorf("no note says %q: %v", tt.note, res.Notes)
			}
		})
	}
}

// TestCheckLoaded: the self-check asks the config loaded from the
// written files; a written step that says something else is found.
func TestCheckLoaded(t *testing.T) {
	dirs, err := Parse("t.conf", []byte(`server {
		server_name a.test;
		location /p/ { rewrite ^(.*)/x$ $1/y redirect; rewrite ^/p/i$ /p/x last; }
	}`))
	if err != nil {
		t.Fatal(err)
	}
	res := Translate(dirs)
	dir := t.TempDir()
	if _, err := Write(dir, res, "test"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, importer.ConfigName)
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if notes := res.CheckLoaded(cfg.Locations); len(notes) != 0 {
		t.Errorf("the loaded config differs: %v", notes)
	}
	b, _ := os.ReadFile(file)
	os.WriteFile(file, []byte(strings.Replace(string(b), "$1/y redirect", "$1/z redirect", 1)), 0o644)
	if cfg, err = config.Load(file); err != nil {
		t.Fatal(err)
	}
	notes := res.CheckLoaded(cfg.Locations)
	if len(notes) == 0 || !strings.Contains(notes[0].Msg, "differs: http://a.test/p/x: nginx gives 302 /p/y, the loaded config 302 /p/z") {
		t.Errorf("a changed step is not found: %v", notes)
	}
}

// TestStructuralCheckAgrees: the self-check finds no difference where
// the written tables answer as nginx: under merge_slashes off it runs
// them with the slashes kept, as serve does (a $uri holding "//"); a
// return reading a map the model does not look up (on $arg_lang), or an
// if it does not follow ($host !=), is unknown to the model, not "no
// redirect".
func TestStructuralCheckAgrees(t *testing.T) {
	for _, conf := range []string{
		`server { server_name a.test; merge_slashes off;
		rewrite ^/(v[0-9]+)$ /$1/ permanent;
		location /v3/ { rewrite ^/v3/(.*)/$ /site/v3/$1/index.html break; proxy_pass http://127.0.0.1:9; }
		location / { return 301 /latest$uri; } }`,
		`server { server_name a.test b.test; if ($host != 'a.test') { return 301 https://a.test$request_uri; } location / { return 301 /x; } }`,
		`map $arg_lang $lang { default ""; de /de; }
		server { server_name a.test; location / { return 302 https://b.test$lang/go$uri; } }`,
	} {
		dirs, err := Parse("t.conf", []byte(conf))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range Translate(dirs).Notes {
			if n.Kind == importer.Differs {
				t.Errorf("%s\nthe self-check: %s", conf, n.Msg)
			}
		}
	}
}

// TestStructuralAbsoluteOff: a config whose every absolute_redirect is
// off is written without [server] absolute_redirect, so that redirectd
// sends a path Location as nginx then does.
func TestStructuralAbsoluteOff(t *testing.T) {
	for conf, want := range map[string]bool{
		"http { absolute_redirect off; server { server_name a.test; location / { rewrite ^/a$ /b last; } } }":                       false,
		"http { absolute_redirect off; server { server_name a.test; absolute_redirect on; location / { rewrite ^/a$ /b last; } } }": true,
		"http { server { server_name a.test; location / { rewrite ^/a$ /b last; } } }":                                              true,
	} {
		dirs, err := Parse("t.conf", []byte(conf))
		if err != nil {
			t.Fatal(err)
		}
		res := Translate(dirs)
		if res.AbsoluteRedirect != want {
			t.Errorf("%s: AbsoluteRedirect = %v, want %v", conf, res.AbsoluteRedirect, want)
		}
	}
}

// TestStructuralBigMaps: a server reading a map of many regexes is
// written as the model, whether its keys have a literal start or only a
// literal inside.
func TestStructuralBigMaps(t *testing.T) {
	conf := func(key string) string {
		var b strings.Builder
		b.WriteString("map $uri $new { ")
		for i := range 2000 {
			fmt.Fprintf(&b, "\"~^%s%d$\" /n/%d; ", key, i, i)
		}
		b.WriteString("} server { server_name a.test; if ($new) { return 301 $new; } }")
		return b.String()
	}
	for _, tt := range []struct {
		key        string
		structural bool
		path       string
	}{
		{"/old/page-", true, "tables (0 locations)"},
		{"/.*/page-", true, "tables (0 locations)"},
	} {
		dirs, err := Parse("t.conf", []byte(conf(tt.key)))
		if err != nil {
			t.Fatal(err)
		}
		res := Translate(dirs)
		if got := len(res.Structural) > 0; got != tt.structural || !strings.Contains(strings.Join(res.Paths, "\n"), tt.path) {
			t.Errorf("keys %s...: structural %v, paths %q; want %v and %q", tt.key, got, res.Paths, tt.structural, tt.path)
		}
	}
}

// TestServerLabel: the report and the written comments name each server
// by its server_name words as written, "_" included, also where its
// tables list no host (one server answering every host).
func TestServerLabel(t *testing.T) {
	for _, tt := range []struct {
		conf, report, comment string
	}{
		{"server {\n listen 80;\n server_name old.example www.old.example;\n rewrite ^/a$ /b permanent;\n}\n",
			"t.conf:1: server old.example www.old.example: [[server_rewrite]]", "# t.conf:1: server old.example www.old.example, its rewrite phase\n"},
		{"server {\n listen 80 default_server;\n server_name _;\n return 404;\n}\nserver {\n listen 80;\n server_name a.test;\n return 301 /x;\n}\n",
			"t.conf:1: server _: [[server_rewrite]]", "# t.conf:1: server _, nginx's default server"},
		{"server {\n listen 80;\n return 301 /x;\n}\n",
			"t.conf:1: server (no server_name): [[server_rewrite]]", "# t.conf:1: server (no server_name), its rewrite phase\n"},
	} {
		dirs, err := Parse("t.conf", []byte(tt.conf))
		if err != nil {
			t.Fatal(err)
		}
		res := Translate(dirs)
		if !strings.Contains(strings.Join(res.Paths, "\n"), tt.report) {
			t.Errorf("paths %q lack %q", res.Paths, tt.report)
		}
		var b strings.Builder
		writeStructural(&b, res, nil)
		if !strings.Contains(b.String(), tt.comment) {
			t.Errorf("the tables lack %q:\n%s", tt.comment, b.String())
		}
	}
}
