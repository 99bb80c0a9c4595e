package nginx

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	writeStructural(&b, res)
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
