package nginx

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/config/importer"
)

// FuzzParse feeds arbitrary text to the parser and the translator. A parse
// either fails with an error naming the file and a line inside the text,
// or gives directives whose lines lie inside it; translating never panics,
// the tables it writes compile (Translate's own check compiles them and
// notes a failure as a bug) and what it writes loads.
func FuzzParse(f *testing.F) {
	f.Add("server { listen 80; server_name a.test *.b.test .c.test; location = /x { return 301 /y; } }")
	f.Add("map $uri $n { default \"\"; /a /b; ~^/r/(\\d+)$ /s/$1; }\nserver { if ($n) { return 301 $n; } }")
	f.Add("server { location ~* \\.php$ { rewrite ^/(.*)\\.php$ /$1 permanent; } location ^~ /p/ { return 302 https://$host$request_uri; } }")
	f.Add("server { location / { rewrite ^ /x? redirect; rewrite ^/a$ /b last; if ($host = x) { return 301 /; } } }")
	f.Add("a \"b\\\"c\" 'd' ${x}y; # c\n{")
	f.Add("map $request_uri $v { \"~^/(?<u>.*)\\.$\" \"$u\"; ~^/t$ https:/a.example/x; ~^/g$ data:x; ~^/d$ //d/x; /r 404; ~^/q\\?a=1 /z?b=2; }\nserver { if ($v != \"\") { rewrite ^(.*)$ $v permanent; } }")
	// Servers per port, certbot's pair, nested locations, proxy_pass.
	f.Add("server { listen 443 ssl; server_name a; ssl_certificate c; ssl_certificate_key k; location /d/ { location /d/e/ { return 301 /f; } location ~ ^/d/.*\\.pdf$ { return 302 /p$uri; } } }\n" +
		"server { if ($host = a) { return 301 https://$host$request_uri; } listen 80; server_name a; return 404; }\nserver { listen 80 default_server; return 301 https://$host$request_uri; }")
	f.Add("upstream u { server 127.0.0.1:81; least_conn; }\nserver { listen [::]:8080; server_name .w.test; location / { proxy_set_header Host $host; proxy_pass http://u; } location /x/ { root /r; } }\n" +
		"server { server_name www.w.test; location = /a { return 200; } location ^~ /s/ { try_files $uri =404; } }")
	// Upstream groups: https, proxy_ssl_*, Host variants,
	// named locations, exact and regex locations, URI parts.
	f.Add("upstream b { server 10.0.0.1 weight=2; server 10.0.0.2:8443 backup; }\nserver { server_name *.x.test; proxy_set_header Host x; location /a/ { proxy_ssl_verify on; proxy_ssl_name n.test; proxy_ssl_trusted_certificate ca.pem; proxy_pass https://b; } location = /e { proxy_pass http://[::1]:81/z; } location ~ \\.php$ { proxy_pass http://p; } }\n" +
		"server { listen 80 default_server; location / { try_files $uri @a; } location @a { proxy_set_header Host $host:$server_port; proxy_pass http://a.test:8080; } location /v/ { proxy_pass http://a.test:8080/w/; } }")
	// Ifs the self-check's model evaluates, set and set $args.
	f.Add("map $http_accept $md { default 0; ~*text/markdown 1; }\nserver { set $args ''; if ($uri ~ \"^(?<o>.*?)\\\\\\$\") { return 301 $scheme://$host$o; } location / { set $f 0; if ($request_uri ~* ^/doc%2F) { set $f 1; } if ($f) { return 301 $uri$is_args$args; } if ($md = 1) { return 302 /md; } if (-f $uri) { return 301 /f; } if ($arg_x != \"\") { rewrite ^ /x?; } } }")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		dirs, err := Parse("f.conf", []byte(text))
		lines := strings.Count(text, "\n") + 1
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.File != "f.conf" || e.Line < 1 || e.Line > lines {
				t.Fatalf("error %v does not place itself in the text (%d lines)", err, lines)
			}
			return
		}
		var walk func([]*Directive)
		walk = func(ds []*Directive) {
			for _, d := range ds {
				if d.Line < 1 || d.Line > lines {
					t.Fatalf("directive %q at line %d of %d", d.Name, d.Line, lines)
				}
				walk(d.Block)
			}
		}
		walk(dirs)
		res := Translate(dirs)
		for _, n := range res.Notes {
			if strings.Contains(n.Msg, "a bug in the import") {
				t.Fatalf("%s", n)
			}
		}
		// What the import writes loads: the tables, the map files, the
		// upstream groups and [tls].
		out := t.TempDir()
		if _, err := Write(out, res, "fuzz"); err != nil {
			t.Fatal(err)
		}
		if _, err := config.Load(filepath.Join(out, importer.ConfigName)); err != nil {
			t.Fatalf("the import does not load: %v", err)
		}
	})
}
