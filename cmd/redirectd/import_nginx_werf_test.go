package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// werfDir is the real site config the import is measured on, where the
// checkout has the shared folder beside it.
var werfDir = filepath.Join("..", "..", "..", "shared", "realmaps", "werf")

// TestImportNginxWerf serves werf's real nginx config with nginx and its
// import with redirectd, and asks both, in raw bytes, for each rewrite's
// own example under every location that includes it, with the `//`,
// `/./`, `/x/../`, `%2F`, upper-case and query variants: the status,
// the Location (absolute, its port aside) and the target the origin
// gets must agree for every request to the servers the import writes as
// locations (werf.io, ru.werf.io, and the dev server, whose error_page
// answers only an upstream failure), to the www server and to an unknown
// host.
func TestImportNginxWerf(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(werfDir, "nginx.conf")); err != nil {
		t.Skipf("werf's config is not here (%v): it lives in the shared folder beside the checkout", err)
	}
	bin := findNginx(t)
	echo := testutil.Serve(t, echoRequestLine)
	dir := t.TempDir()
	nginxAddr := testport.Free(t)
	files := map[string]string{}
	for _, name := range []string{"nginx.conf", "rewrites-docs.conf", "rewrites-website.conf"} {
		b, err := os.ReadFile(filepath.Join(werfDir, name))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(b), "127.0.0.1:18480", nginxAddr)
		s = strings.ReplaceAll(s, "127.0.0.1:18490", echo)
		if name == "nginx.conf" {
			s = strings.Replace(s, "http {", "http {\nclient_body_temp_path body;\nproxy_temp_path proxy;\nfastcgi_temp_path fastcgi;\nuwsgi_temp_path uwsgi;\nscgi_temp_path scgi;", 1)
		}
		files[name] = s
	}
	writeFiles(t, dir, files)
	conf := filepath.Join(dir, "nginx.conf")
	out := filepath.Join(dir, "out")
	code, _, report := runCmd("import", "nginx", "-o", out, conf)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, report)
	}
	for _, want := range []string{"server werf.io ru.werf.io: [[server_rewrite]]", "server dev.werf.test ru.dev.werf.test: [[server_rewrite]]"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "differs:") {
		t.Errorf("the self-check found answers that differ:\n%s", report)
	}
	testutil.RunNginx(t, bin, dir, conf, nginxAddr)
	body, err := os.ReadFile(filepath.Join(out, "redirectd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	served := filepath.Join(out, "served.toml")
	head := "[server]\nlisten = \"127.0.0.1:0\"\n[admin]\nlisten = \"127.0.0.1:0\"\n[access_log]\nenabled = false\n"
	text := strings.Replace(string(body), "[server]\nabsolute_redirect = true\n", "", 1)
	head = strings.Replace(head, "[server]\n", "[server]\nabsolute_redirect = true\n", 1)
	if err := os.WriteFile(served, []byte(head+text), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startNode(t, nodeConfig{File: served})
	addr, stderr := srv.addr, srv.stderr

	paths := werfPaths(t)
	agree, total, redirects := 0, 0, 0
	for _, host := range []string{"werf.io", "ru.werf.io", "www.werf.io", "unknown.test", "dev.werf.test"} {
		for _, p := range paths {
			if host != "werf.io" && host != "dev.werf.test" && !strings.HasPrefix(p, "/docs/v2/") && p != "/" {
				continue // the other hosts: a sample is enough
			}
			total++
			want, got := locationAnswer(t, nginxAddr, host, p), locationAnswer(t, addr, host, p)
			if strings.HasPrefix(want, "30") {
				redirects++
			}
			if want == got {
				agree++
				continue
			}
			t.Errorf("%s%s:\n nginx     %s\n redirectd %s", host, p, want, got)
		}
	}
	t.Logf("%d of %d requests agree (%d of them redirected by nginx)", agree, total, redirects)
	if t.Failed() {
		t.Logf("redirectd's stderr:\n%s", stderr)
	}
}

// lookaround is a PCRE lookahead or lookbehind without nested groups,
// which the sampler (Go's regexp) cannot read.
var lookaround = regexp.MustCompile(`\(\?<?[=!][^()]*(\([^()]*\)[^()]*)*\)`)

// werfPaths are the request targets asked: each rewrite's example, at the
// top and under each docs location, and their variants.
func werfPaths(t *testing.T) []string {
	t.Helper()
	var base []string
	for _, name := range []string{"rewrites-docs.conf", "rewrites-website.conf"} {
		f, err := os.Open(filepath.Join(werfDir, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 3 || fields[0] != "rewrite" {
				continue
			}
			src := lookaround.ReplaceAllString(fields[1], "")
			s, ok := keySample("~" + src)
			if !ok {
				continue
			}
			base = append(base, s)
			if name == "rewrites-docs.conf" {
				for _, loc := range []string{"/docs/v2", "/documentation/latest", "/docs/v1.2"} {
					base = append(base, loc+s)
				}
			}
		}
		f.Close()
	}
	base = append(base, "/", "/docs/v2", "/docs/v2/", "/documentation/v1.2", "/docs/latest/x/")
	var all []string
	for _, p := range base {
		all = append(all, p, p+"?q=1", strings.ToUpper(p), "/"+p, "/."+p, "/x/.."+p, "/.."+p)
		if i := strings.IndexByte(p[1:], '/'); i >= 0 {
			all = append(all, p[:i+1]+"%2F"+p[i+2:], p[:i+1]+"//"+p[i+2:])
		}
	}
	slices.Sort(all)
	return slices.Compact(all)
}
