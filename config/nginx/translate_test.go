package nginx

import "testing"

// TestTranslateAnswers imports the forms of return, rewrite, map and
// server_name one at a time and checks that the tables answer as nginx
// does, the self-check agreeing.
func TestTranslateAnswers(t *testing.T) {
	tests := []struct {
		name, conf string
		asks       []ask
	}{{
		name: "return: exact, ^~ and plain prefixes, regexes with captures",
		conf: `server {
			location = /a { return 301 /b; }
			location /p/ { return 302 https://x.example/; }
			location ^~ /c/ { return 301 /d; }
			location ~* ^/r/(\d+)$ { return 308 /s/$1?x=$args; }
		}`,
		asks: []ask{
			{host: "h", target: "/a?q=1", want: "301 /b"},
			{host: "h", target: "/p/z", want: "302 https://x.example/"},
			{host: "h", target: "/c/x", want: "301 /d"},
			{host: "h", target: "/R/12?k=v", want: "308 /s/12?x=k=v"},
			{host: "h", target: "/other", want: "404"},
		},
	}, {
		name: "rewrite: arguments kept, joined with &, or dropped",
		conf: `server {
			rewrite ^/a/(.*)$ /b/$1 permanent;
			rewrite ^/q$ /r?x=1 redirect;
			rewrite ^/n$ /m? permanent;
			rewrite ^/abs$ https://x.example$request_uri?;
		}`,
		asks: []ask{
			{host: "h", target: "/a/x?k=1", want: "301 /b/x?k=1"},
			{host: "h", target: "/q?k=1", want: "302 /r?x=1&k=1"},
			{host: "h", target: "/n?k=1", want: "301 /m"},
			{host: "h", target: "/abs?k=1", want: "302 https://x.example/abs?k=1"},
		},
	}, {
		name: "rewrite inside a regex location of the same regex, which keeps case",
		conf: `server {
			location ~* ^/item/(\d+)$ { rewrite ^/item/(\d+)$ /items/$1 permanent; }
			location ~ ^/x/(\d+)$ { rewrite ^/x/(\d+)$ /y/$1 permanent; }
		}`,
		asks: []ask{
			{host: "h", target: "/item/1", want: "301 /items/1"},
			{host: "h", target: "/ITEM/1", want: "404"},
			{host: "h", target: "/x/2", want: "301 /y/2"},
		},
	}, {
		name: "server_name hosts, a server-level return, the default server",
		conf: `server { server_name a.test .b.test; return 301 https://$host$request_uri; }
		       server { server_name *.c.test; location = /x { return 301 /y; } }`,
		asks: []ask{
			{host: "a.test", target: "/x", want: "301 https://a.test/x"},
			{host: "s.b.test", target: "/x?q=1", want: "301 https://s.b.test/x?q=1"},
			{host: "y.c.test", target: "/x", want: "301 /y"},
			{host: "y.c.test", target: "/z", want: "404"},
			{host: "other.test", target: "/x", want: "301 https://other.test/x"},
		},
	}, {
		name: "map on $uri used by if at server level, before the locations",
		conf: `map $uri $new { default ""; /Old /new; ~^/r/(\d+)$ /s/$1; }
		       server { if ($new) { return 301 $new; } location = /old { return 301 /shadowed; } }`,
		asks: []ask{
			{host: "h", target: "/OLD", want: "301 /new"},
			{host: "h", target: "/old", want: "301 /new"},
			{host: "h", target: "/r/5", want: "301 /s/5"},
			{host: "h", target: "/z", want: "404"},
		},
	}, {
		name: "hostnames map on $host",
		conf: `map $host $to { hostnames; default ""; .old.test new.example; x.test y.example; }
		       server { server_name main.test .old.test x.test; if ($to) { return 301 https://$to$request_uri; } location = /p { return 301 /q; } }`,
		asks: []ask{
			{host: "old.test", target: "/a", want: "301 https://new.example/a"},
			{host: "w.old.test", target: "/a", want: "301 https://new.example/a"},
			{host: "x.test", target: "/a?k=1", want: "301 https://y.example/a?k=1"},
			{host: "main.test", target: "/p", want: "301 /q"},
			{host: "main.test", target: "/z", want: "404"},
		},
	}, {
		name: "regexes RE2 cannot express run as PCRE",
		conf: `server {
			rewrite ^/docs/(?!(v\d|latest)/)(.+)$ /docs/v2/$2 redirect;
			location ~* ^/(?<w>[a-z]+)/\k<w>$ { return 301 /twice/$w; }
		}`,
		asks: []ask{
			{host: "h", target: "/docs/guide", want: "302 /docs/v2/guide"},
			{host: "h", target: "/docs/v1/x", want: "404"},
			{host: "h", target: "/abc/abc", want: "301 /twice/abc"},
			{host: "h", target: "/abc/abd", want: "404"},
		},
	}, {
		name: "an internal rewrite and $server_name",
		conf: `server {
			server_name main.test alias.test;
			rewrite ^/int$ /other last;
			location = /sn { return 301 https://$server_name/x; }
			location / { return 301 https://new.example$uri$is_args$args; }
		}`,
		asks: []ask{
			{host: "main.test", target: "/int?k=1", want: "301 https://new.example/other?k=1"},
			{host: "alias.test", target: "/sn", want: "301 https://main.test/x"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkAnswers(t, tt.conf, tt.asks) })
	}
}
