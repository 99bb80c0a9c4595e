package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// structuralSite holds each construct the import writes as locations:
// server-level rewrite, if and set; exact, ^~, prefix, regex and
// case-insensitive regex locations, nested ones; rewrite with redirect,
// permanent, last and break; return of a redirect, a text, 410, 405 and
// 444; if on $arg_, $request_method and $uri with captures; proxy_pass
// with and without a URI part; a location that serves files (404 here);
// a default server that must not answer the others' hosts.
// %[1]s is nginx's address, %[2]s the origin.
const structuralSite = `
server {
	listen %[1]s default_server;
	return 301 https://catchall.test$request_uri;
}
server {
	listen %[1]s;
	server_name a.test;
	rewrite ^/old-server/(.*)$ /new-server/$1 permanent;
	if ($arg_go = away) { return 302 https://elsewhere.test/; }
	location = /healthz { return 200 "ok"; }
	location = /drop { return 444; }
	location = /gone { return 410; }
	location ^~ /static/ { return 301 /assets$uri; }
	location ~ \.(png|jpg)$ { return 302 /img$uri; }
	location ~* ^/case/(.+)$ { return 307 /lower/$1; }
	location /docs/ {
		rewrite ^/docs/old/(.*)$ /docs/new/$1 redirect;
		rewrite ^/docs/int/(.*)$ /docs/$1 last;
		rewrite ^/docs/brk/(.*)$ /b/$1 break;
		location /docs/nested/ { return 301 /nested$request_uri; }
		location ~ ^/docs/.+\.pdf$ { return 303 /pdf$uri; }
		proxy_pass http://%[2]s;
	}
	location /api/ { proxy_pass http://%[2]s/v1/; }
	location /internal/ { rewrite ^/internal/(.*)$ /final/$1 last; }
	location /final/ { return 200 "final $uri"; }
	location /files/ { root /nonexistent; }
	location / {
		if ($request_method = POST) { return 405; }
		if ($uri ~ ^/user/(\d+)$) { return 301 /u/$1; }
		set $t /t;
		rewrite ^/set/(.*)$ $t/$1 permanent;
		proxy_pass http://%[2]s;
	}
}
server {
	listen %[1]s;
	server_name b.test www.b.test;
	if ($host = www.b.test) { return 308 http://b.test$request_uri; }
	location / {
		rewrite ^/(.*)$ /b/$1 break;
		proxy_pass http://%[2]s;
	}
}
`

// TestImportNginxStructuralFixture imports structuralSite, checks both
// named servers are written as locations, and asks a real nginx and
// redirectd the same raw requests, with nginx's normalisation variants:
// status, Location (port aside), text bodies and the origin's target must
// agree.
func TestImportNginxStructuralFixture(t *testing.T) {
	t.Parallel()
	paths := []string{"/", "/old-server/x?y=1", "/x?go=away", "/healthz", "/drop", "/gone", "/static/a.css", "/static/b.png",
		"/a/b.png", "/a/b.JPG", "/CASE/Thing", "/case/x", "/docs/", "/docs", "/docs/old/a?q", "/docs/int/old/z", "/docs/int/p",
		"/docs/brk/c?d=1", "/docs/nested/n?m", "/docs/f.pdf", "/docs/nested/f.pdf", "/api/list?x=1", "/api", "/internal/q",
		"/final/z", "/user/42", "/user/x", "/set/a/b", "/plain/page", "/files/x"}
	report := importAgainstNginx(t, structuralSite, []string{"a.test", "b.test", "www.b.test", "unknown.test"}, paths)
	for _, want := range []string{"server a.test: [[server_rewrite]] and [[location]] tables", "server b.test www.b.test: [[server_rewrite]] and [[location]] tables",
		"location /files/: nginx answers the requests its steps leave itself"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

// simpleSite is a server of plain returns: exact, prefix and regex
// returns and a proxy. %[1]s is nginx's address, %[2]s the origin.
const simpleSite = `
server {
	listen %[1]s;
	server_name s.test;
	location = /a { return 301 /b; }
	location /old/ { return 302 https://new.test$request_uri; }
	location ~ ^/p/(\d+)$ { return 308 /post/$1; }
	location / { proxy_pass http://%[2]s; }
}
`

// TestImportNginxAllLocations: a server of plain returns, which the flat
// rules once said whole, is written as locations and answers as nginx;
// -locations all, which asked for that, is still taken, and -locations
// auto, which asked for flat rules, exits 2 saying it is gone.
func TestImportNginxAllLocations(t *testing.T) {
	report := importAgainstNginx(t, simpleSite, []string{"s.test"}, []string{"/a", "/a/", "/old/x?q=1", "/p/12", "/p/x", "/other"}, "-locations", "all")
	if !strings.Contains(report, "server s.test: [[server_rewrite]] and [[location]] tables (4 locations)") {
		t.Errorf("s.test is not written as locations:\n%s", report)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"nginx.conf": "server { return 301 /x; }\n"})
	code, _, stderr := runCmd("import", "nginx", "-locations", "auto", "-o", filepath.Join(dir, "out"), filepath.Join(dir, "nginx.conf"))
	if code != 2 || !strings.Contains(stderr, "-locations auto is gone") {
		t.Errorf("-locations auto: exit %d, want 2 and a message:\n%s", code, stderr)
	}
}

// importAgainstNginx serves site (with %[1]s nginx's address and %[2]s an
// origin echoing the target it gets) by a real nginx and by redirectd
// from its import (with importFlags), asks both each path and its `//`,
// `/./`, `/x/../` and `%2F` variants on each host, fails on each answer
// that differs, and returns the import's report.
func importAgainstNginx(t *testing.T, site string, hosts, paths []string, importFlags ...string) string {
	t.Helper()
	bin := findNginx(t)
	echo := testutil.Serve(t, echoRequestLine)
	dir := t.TempDir()
	nginxAddr := testport.Free(t)
	conf := testutil.NginxHTTPHead(dir) + fmt.Sprintf(site, nginxAddr, echo) + "\n}\n"
	writeFiles(t, dir, map[string]string{"nginx.conf": conf})
	out := filepath.Join(dir, "out")
	code, _, report := runCmd(append(append([]string{"import", "nginx", "-o", out}, importFlags...), filepath.Join(dir, "nginx.conf"))...)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, report)
	}
	if strings.Contains(report, "differs:") {
		t.Errorf("the self-check found answers that differ:\n%s", report)
	}
	testutil.RunNginx(t, bin, dir, filepath.Join(dir, "nginx.conf"), nginxAddr)
	body, err := os.ReadFile(filepath.Join(out, "redirectd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	served := filepath.Join(out, "served.toml")
	// The import's [server] table (absolute_redirect = true, unless nginx
	// has absolute_redirect off) joins the listen address.
	const absLine = "[server]\nabsolute_redirect = true\n"
	absolute := strings.Contains(string(body), absLine)
	text := strings.Replace(string(body), absLine, "", 1)
	os.WriteFile(served, []byte("[server]\nlisten = \"127.0.0.1:0\"\nabsolute_redirect = "+fmt.Sprint(absolute)+"\n[admin]\nlisten = \"127.0.0.1:0\"\n[access_log]\nenabled = false\n"+text), 0o644)
	srv := startNode(t, nodeConfig{File: served})
	addr, stderr := srv.addr, srv.stderr
	var all []string
	for _, p := range paths {
		all = append(all, p, "/"+p, "/."+p, "/x/.."+p, "/.."+p)
		if i := strings.IndexByte(p[1:], '/'); i >= 0 {
			all = append(all, p[:i+1]+"%2F"+p[i+2:], p[:i+1]+"//"+p[i+2:])
		}
	}
	agree, total := 0, 0
	for _, host := range hosts {
		for _, p := range all {
			total++
			want, got := locationAnswer(t, nginxAddr, host, p), locationAnswer(t, addr, host, p)
			if want == got || locationSafe(want) == got {
				agree++
				continue
			}
			t.Errorf("%s%s:\n nginx     %s\n redirectd %s", host, p, want, got)
		}
	}
	t.Logf("%d of %d requests agree", agree, total)
	if t.Failed() {
		t.Logf("report:\n%s\nredirectd's stderr:\n%s", report, stderr)
	}
	return report
}

// locationSafe is answer (locationAnswer's) with the bytes of its
// Location that redirectd escapes and nginx sends raw (a space, non-ASCII
// from a decoded $uri) percent-encoded: the one intended difference
// (matcher/rewrite's appendLocationSafe).
func locationSafe(answer string) string {
	status, loc, ok := strings.Cut(answer, " ")
	if !ok || !strings.HasPrefix(status, "3") {
		return answer
	}
	var b strings.Builder
	for i := 0; i < len(loc); i++ {
		c := loc[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return status + " " + b.String()
}
