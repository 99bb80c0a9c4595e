package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
)

// TestImportNginxPCRERoundTrip imports rewrites, regex locations and map
// keys whose regexes RE2 cannot express (werf's lookahead rewrite, a
// lookbehind, a backreference, an atomic group that gives back, a
// possessive quantifier) and checks that nginx and redirectd serving the
// import answer every request alike: they run on matcher/pcre.
func TestImportNginxPCRERoundTrip(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	dir := t.TempDir()
	addr := testport.Free(t)
	maps := "map $uri $pcre_map {\n    ~^/m/(\\w+)/\\1$ /m-twice/$1;\n    ~^/Re/(\\w+)/\\1$ /re-twice/$1;\n    ~*^/M/(?>a|ab)c$ /m-atomic;\n    ~^/m/[a-z]*+x$ /m-possessive;\n}\n"
	sites := fmt.Sprintf("server {\n    listen %s default_server;\n    server_name pcre.test;\n"+
		"    if ($pcre_map) { return 301 $pcre_map; }\n"+
		"    rewrite ^/docs/(?!(v\\d+(?:\\.\\d+)?|latest)/)(?:.+) /docs/v2/ redirect;\n"+
		"    rewrite ^/a/(.+)(?<!\\.html)$ /b/$1.html permanent;\n"+
		// RE2 accepts these and reads them otherwise than nginx's PCRE.
		"    rewrite ^/tags/(?<first>.*)+(?<second>.*)$ /$first%%20$second permanent;\n"+
		"    rewrite ^/x((?:\\B|[^a])*) /x-$1 permanent;\n"+
		"    location ~ ^/nl$ { return 301 /newline; }\n"+
		"    location ~ ^/sp/a\\s$ { return 301 /space; }\n"+
		"    location ~* ^/(?<w>[a-z]+)/\\k<w>$ { return 301 /twice/$w; }\n"+
		"    location ~ ^/p/(?=\\d)(\\w+)$ { return 302 /product/$1; }\n}\n", addr)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "maps/pcre.conf": maps, "sites/pcre.conf": sites})
	var reqs [][2]string
	for _, target := range []string{
		"/docs/guide/x", "/docs/v1/x", "/docs/v1.2/x", "/docs/latest/x", "/docs/latestx/y", "/docs/v1.2.3/x",
		"/a/page", "/a/page.html", "/a/x/y",
		"/ab/ab", "/Ab/aB", "/ab/ac",
		"/p/1abc", "/p/abc",
		"/m/foo/foo", "/m/foo/bar", "/Re/x/x", "/re/x/x", "/m/abc", "/M/AC", "/m/ac", "/m/abcx", "/m/abx1",
		"/nothing",
		"/tags/xx", "/tags/", "/x00", "/xa0", "/nl", "/nl%0A", "/sp/a%0B", "/sp/a%20",
	} {
		reqs = append(reqs, [2]string{"pcre.test", target})
	}
	roundTrip(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), addr, reqs)
}
