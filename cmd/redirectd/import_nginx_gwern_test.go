package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/realmaps"
	"github.com/redirectd/redirectd/config/nginx"
	"github.com/redirectd/redirectd/engine/testport"
)

// TestImportNginxGwernAgainstNginx serves the real site's whole
// gwern.net.conf (its plain listen on a test port, its TLS listen and
// certificates taken out, its paths pointed at a folder of the test) by
// a real nginx and by redirectd from its import, and asks both a sample
// path of each of its 900 rewrites, with "//", "/./", a query and the
// path upper-cased. The import's self-check finds no answer that
// differs, and every redirect agrees but a Location that keeps a
// backslash, which redirectd percent-encodes (the one intended
// difference).
func TestImportNginxGwernAgainstNginx(t *testing.T) {
	t.Parallel()
	real := realmaps.Dir(t, "gwern")
	nginxBin := findNginx(t)
	dir := t.TempDir()
	addr := testport.Free(t)
	text, err := os.ReadFile(filepath.Join(real, "gwern.net.conf"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(text), "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "listen" && strings.Contains(line, "443") || strings.HasPrefix(f[0], "ssl_certificate")) {
			continue
		}
		kept = append(kept, line)
	}
	empty := filepath.Join(dir, "empty.conf")
	site := strings.NewReplacer("/home/gwern/gwern.net/static/nginx/redirect/", real+string(filepath.Separator),
		"/etc/nginx/mime.types", empty, "/etc/nginx/conf.d/memoriam.conf", empty,
		"/var/log/nginx/", dir+string(filepath.Separator), "root /home/gwern/gwern.net;", "root "+filepath.Join(dir, "root")+";",
		"listen 80  default_server;", "listen "+addr+" default_server;", "listen 80;", "listen "+addr+";").Replace(strings.Join(kept, "\n"))
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "sites/gwern.conf": site, "empty.conf": "", "root/.keep": ""})
	conf := filepath.Join(dir, "nginx.conf")

	dirs, err := nginx.ParseFile(conf, real)
	if err != nil {
		t.Fatal(err)
	}
	var reqs [][2]string
	seen := map[string]bool{}
	ask := func(p string) {
		if !seen[p] {
			seen[p] = true
			reqs = append(reqs, [2]string{"gwern.net", p})
		}
	}
	for _, d := range rewrites(dirs) {
		p, ok := keySample("~" + d.Args[0])
		if !ok || strings.Contains(p, "?") {
			continue
		}
		ask(p)
		ask("/" + p)
		ask("/." + p)
		ask(p + "?utm_source=x")
		ask(strings.ToUpper(p))
	}
	for _, p := range []string{"/DOC%2F", "/doc%2Fa%2Fb?x=1", "/doc%252Fa%252Fb", "/dnb-faq%5C", "/a/b%5C?q=1", "/A/tags/", "/B/x/tags/y?z=1", "/x.page", "/blog/2019/index"} {
		ask(p)
	}
	if len(reqs) < 2000 {
		t.Fatalf("only %d requests", len(reqs))
	}
	backslash := func(_ string, ns int, nl string, s int, l string) bool {
		return ns == s && strings.Contains(nl, `\`) && strings.ReplaceAll(nl, `\`, "%5C") == l
	}
	roundTripExcept(t, nginxBin, dir, conf, addr, reqs, backslash, "-include-dir", real)
}

// rewrites returns the rewrite directives in dirs, at any depth.
func rewrites(dirs []*nginx.Directive) []*nginx.Directive {
	var out []*nginx.Directive
	for _, d := range dirs {
		if d.Name == "rewrite" && len(d.Args) >= 2 {
			out = append(out, d)
		}
		out = append(out, rewrites(d.Block)...)
	}
	return out
}
