package rewrite

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// trySite takes each try_files fallback: a URI with its own query, a URI
// without one, a named location, =CODE caught by an error page, and a
// fallback into its own location, which loops.
var trySite = Spec{
	Steps: []Text{{Src: "rewrite ^/feed$ /index.php?feed=rss2 last;", Line: 1}},
	Locations: []LocationSpec{
		{Match: Prefix, Path: "/", Steps: `try_files $uri $uri/ /index.php?$args;`},
		{Match: Regex, Path: `\.php$`, Pass: true, Upstream: "php"},
		{Match: Prefix, Path: "/keep/", Steps: `rewrite ^/keep/(.*)$ /kept/$1 break; try_files $uri /app.php;`},
		{Match: Prefix, Path: "/named/", Steps: `try_files $uri @app;`},
		{Match: Named, Path: "app", Pass: true, Upstream: "app"},
		{Match: Prefix, Path: "/code/", Steps: "error_page 404 /missing.php;\ntry_files $uri =404;"},
		{Match: Prefix, Path: "/loop/", Steps: `try_files $uri /loop/again;`},
		{Match: Prefix, Path: "/app/", Steps: `try_files $uri /front/index;`},
		{Match: Prefix, Path: "/front/", Steps: "internal;\nreturn 200 \"front $uri\";"},
		{Match: Prefix, Path: "/r/", Steps: `rewrite ^/r/(.*)$ /front/$1 last;`},
		{Match: Prefix, Path: "/secret/", Steps: "internal;\nerror_page 404 /front/from-secret;"},
	},
}

func TestTryFiles(t *testing.T) {
	p, err := Compile(trySite)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		target string
		want   answer
	}{
		{"/2024/hello/?a=1&b=%20", answer{Action: Forward, URI: "/index.php?a=1&b=%20", Where: `~ \.php$`, Ups: "php"}},
		{"/", answer{Action: Forward, URI: "/index.php", Where: `~ \.php$`, Ups: "php"}},
		{"/feed", answer{Action: Forward, URI: "/index.php?feed=rss2", Where: `~ \.php$`, Ups: "php"}},
		{"/keep/x?q=1", answer{Action: Forward, URI: "/app.php?q=1", Where: `~ \.php$`, Ups: "php"}},
		{"/named/a%20b?q", answer{Action: Forward, URI: "/named/a%20b?q", Where: "@app", Ups: "app"}},
		{"/code/x", answer{Action: Forward, Status: 404, URI: "/missing.php", Where: `~ \.php$`, Ups: "php"}},
		{"/loop/x", answer{Action: Answer, Status: 500, Where: "/loop/"}},
		// internal: a 404 asked directly, the location reached by
		// try_files or a rewrite.
		{"/front/index", answer{Action: Answer, Status: 404, Where: "/front/"}},
		{"/app/x", answer{Action: Answer, Status: 200, Body: "front /front/index", Where: "/front/"}},
		{"/r/y", answer{Action: Answer, Status: 200, Body: "front /front/y", Where: "/front/"}},
		{"/secret/a", answer{Action: Answer, Status: 404, Body: "front /front/from-secret", Where: "/front/"}},
	} {
		got := run(t, p, request("example.com", tt.target, nil))
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.target, d)
		}
		req := request("example.com", tt.target, nil)
		var s Scratch
		var res Result
		p.Run(&s, req, &res)
		if n := testing.AllocsPerRun(100, func() { p.Run(&s, req, &res) }); n != 0 {
			t.Errorf("%s: %v allocations per Run", tt.target, n)
		}
	}
}

func TestTryFilesErrors(t *testing.T) {
	for _, tt := range []struct {
		spec Spec
		want string
	}{
		{Spec{Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: "try_files /x;"}}}, "try_files: takes one or more files and a fallback URI, @name or =CODE"},
		{Spec{Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: "try_files $uri =abc;"}}}, `try_files: invalid code "=abc"`},
		{Spec{Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: "if ($uri) { try_files $uri /x; }"}}}, "try_files: not supported inside if"},
		{Spec{Steps: []Text{{Src: "try_files $uri /x;", Line: 1}}}, "try_files and internal: redirectd takes them in a location only"},
		{Spec{Locations: []LocationSpec{{Match: Prefix, Path: "/", Steps: "internal x;"}}}, "internal: takes no arguments, and not inside if"},
	} {
		_, err := Compile(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %s", tt.spec, err, tt.want)
		}
	}
}
