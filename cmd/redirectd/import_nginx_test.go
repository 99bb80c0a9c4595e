package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/explain"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// sampleNginx writes an nginx config of several hundred redirects covering
// every form import translates, listening on addr, and returns its path and
// the requests to compare (host, then target).
func sampleNginx(t *testing.T, dir, addr string) (string, [][2]string) {
	t.Helper()
	var reqs [][2]string
	ask := func(host string, targets ...string) {
		for _, target := range targets {
			reqs = append(reqs, [2]string{host, target})
		}
	}
	var maps, main strings.Builder
	// A map on $uri used at server level: exact keys (compared without
	// case), regex keys with captures.
	maps.WriteString("map $uri $new_uri {\n    default \"\";\n")
	for i := range 200 {
		fmt.Fprintf(&maps, "    /old/page-%d /new/page-%d;\n", i, i)
		if i%20 == 0 {
			ask("main.test", fmt.Sprintf("/old/page-%d", i), fmt.Sprintf("/OLD/Page-%d?x=1", i), fmt.Sprintf("/old/page-%d/", i))
		}
	}
	maps.WriteString("    ~^/legacy/(\\d+)/(.*)$ /l/$1/$2;\n    ~*^/shout/(\\w+)$ https://shout.example/$1;\n}\n")
	ask("main.test", "/legacy/12/a/b", "/legacy/12/a?q=2", "/legacy/x/a", "/shout/abc", "/SHOUT/Abc?z=1", "/shout/a/b")
	// A hostnames map on $host: whole hosts move.
	maps.WriteString("map $host $moved_host {\n    hostnames;\n    default \"\";\n    .old-brand.test new-brand.example;\n    *.legacy.test legacy.example;\n    exact.test exact.example;\n}\n")
	ask("old-brand.test", "/", "/a/b?c=d")
	ask("www.old-brand.test", "/x")
	ask("a.legacy.test", "/y?z=1")
	ask("legacy.test", "/y")
	ask("exact.test", "/p")
	ask("sub.exact.test", "/p")

	fmt.Fprintf(&main, "server {\n    listen %s default_server;\n    server_name main.test www.main.test .old-brand.test *.legacy.test exact.test sub.exact.test;\n", addr)
	main.WriteString("    if ($moved_host) {\n        return 301 https://$moved_host$request_uri;\n    }\n")
	main.WriteString("    if ($new_uri) {\n        return 301 $new_uri;\n    }\n")
	main.WriteString("    rewrite ^/rw/(\\d+)$ /rewritten/$1 permanent;\n    rewrite ^/rwq/(\\w+)$ /rewritten?id=$1 redirect;\n")
	ask("main.test", "/rw/7", "/rw/7?a=b", "/rw/x", "/rwq/abc?a=b", "/rwq/abc")
	for i := range 100 {
		fmt.Fprintf(&main, "    location = /exact/%d { return 301 /exact-target/%d; }\n", i, i)
		if i%10 == 0 {
			ask("main.test", fmt.Sprintf("/exact/%d", i), fmt.Sprintf("/exact/%d?q=1", i), fmt.Sprintf("/EXACT/%d", i), fmt.Sprintf("/exact/%d/more", i))
		}
	}
	main.WriteString("    location = /exact-host { return 302 https://$host/elsewhere; }\n")
	ask("main.test", "/exact-host", "/exact-host?x=1")
	ask("www.main.test", "/exact-host")
	for i := range 50 {
		fmt.Fprintf(&main, "    location ^~ /caret/%d/ { return 301 /caret-target/%d; }\n", i, i)
		fmt.Fprintf(&main, "    location /plain/%d/ { return 302 https://plain.example/%d; }\n", i, i)
		if i%10 == 0 {
			ask("main.test", fmt.Sprintf("/caret/%d/", i), fmt.Sprintf("/caret/%d/a/b.html?x=1", i), fmt.Sprintf("/caret/%d", i),
				fmt.Sprintf("/plain/%d/", i), fmt.Sprintf("/plain/%d/deep/x?y=2", i), fmt.Sprintf("/Plain/%d/", i))
		}
	}
	// Nested prefixes, and regexes that compete with prefixes.
	main.WriteString("    location ^~ /shop/ { return 301 /store; }\n    location ^~ /shop/sale/ { return 302 /store/sale; }\n")
	main.WriteString("    location /docs/ { return 301 https://docs.example/; }\n    location /docs/v1/ { return 301 https://docs.example/v1/; }\n")
	main.WriteString("    location ~ \\.html$ { return 301 /html$uri; }\n")
	main.WriteString("    location ~* ^/img/(?<name>[a-z]+)\\.(png|jpg)$ { return 308 /images/$name.$2; }\n")
	main.WriteString("    location ~ ^/re/(\\d+)/(.*)$ { return 301 /re-target/$1?rest=$2; }\n")
	main.WriteString("    location ^~ /caret-html/ { return 301 /caret-beats-regex; }\n")
	ask("main.test", "/shop/", "/shop/x", "/shop/sale/", "/shop/sale/x.html", "/shop/x.html",
		"/docs/", "/docs/a/b", "/docs/v1/x", "/docs/v1/x.html", "/docs/a.html?x=1",
		"/img/cat.png", "/IMG/Cat.JPG", "/img/cat.gif", "/img/cat1.png",
		"/re/12/abc", "/re/12/abc?x=1", "/re/ab/c", "/caret-html/a.html", "/other.html")
	// Rewrites inside a location: the request's arguments kept, joined
	// with '&', or dropped with a trailing '?'; a location serving
	// content for the rest.
	main.WriteString("    location /static/ {\n        rewrite ^/static/old/(.*)$ /static/new/$1 redirect;\n        rewrite ^/static/args/(.*)$ /s?src=$1 permanent;\n        rewrite ^/static/noargs/(.*)$ /s/$1? permanent;\n        rewrite ^/static/abs/(.*)$ https://cdn.example/$1;\n        root /nonexistent;\n    }\n")
	ask("main.test", "/static/old/a.css", "/static/old/a.css?v=1", "/static/args/x", "/static/args/x?v=1",
		"/static/noargs/x?v=1", "/static/abs/y?v=2", "/static/other.css")
	// The server-level return of a server for its own names.
	main.WriteString("}\nserver {\n    listen " + addr + ";\n    server_name .brand.test;\n    return 301 https://www.brand.example$request_uri;\n}\n")
	ask("brand.test", "/", "/a?b=c")
	ask("x.y.brand.test", "/deep/path")
	// A wildcard server whose locations use $host and $uri.
	main.WriteString("server {\n    listen " + addr + ";\n    server_name *.wild.test;\n    location / { return 302 https://$host/moved$uri; }\n    location = /robots.txt { return 301 /robots-moved.txt; }\n}\n")
	ask("a.wild.test", "/x/y?z=1", "/robots.txt", "/robots.txt?a=1")
	ask("B.Wild.Test", "/Case")
	// Misses on the default server.
	ask("main.test", "/", "/nothing/here", "/old/page-999", "/exact/1000", "/favicon.ico")

	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "maps/redirects.conf": maps.String(), "sites/main.conf": main.String()})
	return filepath.Join(dir, "nginx.conf"), reqs
}

// answer sends GET target with Host host to addr and returns the status
// and the Location resolved against the request's URL at base. It may
// run on a goroutine other than the test's, so it returns its error.
func answer(addr, host, target, base string) (int, string, error) {
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		return 0, "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: %v", host, target, err)
	}
	resp.Body.Close()
	if resp.StatusCode < 300 || resp.StatusCode > 399 {
		return 0, "", nil // not a redirect: nginx's 404, redirectd's miss
	}
	loc, err := resolveErr(base, resp.Header.Get("Location"))
	return resp.StatusCode, loc, err
}

// resolve reads loc as a browser does, against base: the URL standard
// reads one slash after http: or https: as two ("https:/host/x" is
// https://host/x), where url.Parse reads a path.
func resolve(t *testing.T, base, loc string) string {
	t.Helper()
	u, err := resolveErr(base, loc)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func resolveErr(base, loc string) (string, error) {
	for _, scheme := range []string{"http:/", "https:/"} {
		if rest, ok := strings.CutPrefix(loc, scheme); ok && rest != "" && rest[0] != '/' {
			loc = scheme + "/" + rest
		}
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	l, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("Location %q: %v", loc, err)
	}
	return b.ResolveReference(l).String(), nil
}

// explainAnswer asks the rules what explain would print for host+target.
func explainAnswer(t *testing.T, cfg *config.Config, host, target, base string) (int, string) {
	var out bytes.Buffer
	if err := explain.URL(&out, cfg.Set, "http://"+host+target); err != nil {
		t.Fatal(err)
	}
	var status int
	var loc string
	for _, line := range strings.Split(out.String(), "\n") {
		fmt.Sscanf(line, "status: %d", &status)
		if l, ok := strings.CutPrefix(line, "location: "); ok {
			loc = strings.TrimSpace(l)
		}
	}
	if status < 300 || status > 399 {
		return 0, "" // as answer reads it
	}
	if strings.HasPrefix(loc, "//") {
		// A path the server sends absolute (absolute_redirect), where
		// a browser would read "//" as a host.
		u, _ := url.Parse(base)
		loc = u.Scheme + "://" + u.Host + loc
	}
	return status, resolve(t, base, loc)
}

// nginxConf is the main file of a test nginx in dir: the http block
// includes maps/*.conf and sites/*.conf.
func nginxConf(dir string) string {
	return fmt.Sprintf(`worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    include maps/*.conf;
    include sites/*.conf;
}
`, dir)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func findNginx(t *testing.T) string { return testutil.FindNginx(t) }

// TestImportNginxRoundTrip imports a sample nginx config and checks that,
// for every request of a list, a real nginx serving that config and
// redirectd serving the import (through explain's code and through the
// real server) give the same status and Location. Relative Locations are
// resolved against the request's URL on both sides: nginx makes them
// absolute with the request's host and its port (absolute_redirect).
func TestImportNginxRoundTrip(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	dir := t.TempDir()
	nginxAddr := testport.Free(t)
	conf, reqs := sampleNginx(t, dir, nginxAddr)
	if len(reqs) < 100 {
		t.Fatalf("only %d requests", len(reqs))
	}
	stderr, cfg := roundTrip(t, nginxBin, dir, conf, nginxAddr, reqs)
	// Every server is written as nginx's model: its locations, steps
	// and maps, as the config says them.
	if !strings.Contains(stderr, "[[server_rewrite]] and [[location]] tables") || strings.Contains(stderr, "flat rules") {
		t.Errorf("the report does not say every server is written as locations:\n%s", stderr)
	}
	if n := len(cfg.Locations.List()); n < 20 {
		t.Errorf("the import holds %d server steps and locations, want the sample's", n)
	}
}

// roundTrip imports conf, serves it with nginx (on nginxAddr) and with
// redirectd, and compares the answers to reqs (host, then target) of
// nginx, explain's code and redirectd serve. It returns what the import
// printed and the loaded import.
func roundTrip(t *testing.T, nginxBin, dir, conf, nginxAddr string, reqs [][2]string) (string, *config.Config) {
	t.Helper()
	return roundTripExcept(t, nginxBin, dir, conf, nginxAddr, reqs, nil)
}

// roundTripExcept is roundTrip, where an answer of redirectd (explain's
// and serve's alike) that differs from nginx's is no error when except
// (if not nil) says the import's report names it: except gets the target,
// then nginx's status and Location and redirectd's, resolved.
func roundTripExcept(t *testing.T, nginxBin, dir, conf, nginxAddr string, reqs [][2]string, except func(target string, nginxStatus int, nginxLoc string, status int, loc string) bool, importFlags ...string) (string, *config.Config) {
	t.Helper()
	out := filepath.Join(dir, "out")
	code, _, stderr := runCmd(append(append([]string{"import", "nginx", "-o", out}, importFlags...), conf)...)
	// A config with answers the report names (except) exits 1 for them,
	// its files written.
	if code != 0 && (except == nil || code != 1) {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	t.Logf("import:\n%s", stderr)
	if strings.Contains(stderr, "differs:") {
		t.Errorf("the import found answers that differ from nginx's:\n%s", stderr)
	}
	cfg, err := config.Load(filepath.Join(out, "redirectd.toml"))
	if err != nil {
		t.Fatalf("the imported config does not load: %v", err)
	}
	if code, _, errs := runCmd("check", "-config", filepath.Join(out, "redirectd.toml")); code != 0 {
		t.Fatalf("check of the import: exit %d\n%s", code, errs)
	}

	testutil.RunNginx(t, nginxBin, dir, conf, nginxAddr)

	// The import served by the real binary, on its own port.
	served := filepath.Join(out, "served.toml")
	body, _ := os.ReadFile(filepath.Join(out, "redirectd.toml"))
	addr, admin := testport.Free(t), testport.Free(t)
	os.WriteFile(served, servedConfig(fmt.Sprintf("[server]\nlisten = %q\n[admin]\nlisten = %q\n[access_log]\nenabled = false\n", addr, admin), body), 0o644)
	nd := startNode(t, nodeConfig{File: served})
	srvErr := nd.stderr
	// Listening is enough: a site may close the connection of a request
	// for a host it does not serve (return 444).
	waitListening(t, "redirectd", srvErr, addr)

	// Both servers are asked by a few workers at once (each request on
	// its own connection, as before): one after another, the waits on
	// loopback round trips were most of the longest test's time.
	type answers struct {
		ns, ss int
		nl, sl string
		err    error
	}
	got := make([]answers, len(reqs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(reqs); i = int(next.Add(1)) - 1 {
				host, target := reqs[i][0], reqs[i][1]
				base := "http://" + strings.ToLower(host) + ":" + strings.Split(nginxAddr, ":")[1] + target
				a := &got[i]
				if a.ns, a.nl, a.err = answer(nginxAddr, host, target, base); a.err == nil {
					a.ss, a.sl, a.err = answer(addr, host, target, base)
				}
				if a.err != nil {
					next.Store(int64(len(reqs))) // the test ends at the first
				}
			}
		})
	}
	wg.Wait()
	redirects := 0
	for i, r := range reqs {
		host, target := r[0], r[1]
		base := "http://" + strings.ToLower(host) + ":" + strings.Split(nginxAddr, ":")[1] + target
		if got[i].err != nil {
			t.Fatal(got[i].err)
		}
		ns, nl, ss, sl := got[i].ns, got[i].nl, got[i].ss, got[i].sl
		es, el := explainAnswer(t, cfg, host, target, base)
		sl = asNginxPort(sl, addr, strings.Split(nginxAddr, ":")[1])
		if ns != 0 {
			redirects++
		}
		if except != nil && es == ss && el == sl && (es != ns || el != nl) && except(target, ns, nl, es, el) {
			continue
		}
		if es != ns || el != nl {
			t.Errorf("Host %s, %s: nginx %d %q, explain %d %q", host, target, ns, nl, es, el)
		}
		if ss != ns || sl != nl {
			t.Errorf("Host %s, %s: nginx %d %q, redirectd serve %d %q", host, target, ns, nl, ss, sl)
		}
	}
	if redirects < len(reqs)/2 {
		t.Errorf("nginx redirected only %d of %d requests: the sample does not exercise the import", redirects, len(reqs))
	}
	t.Logf("%d requests compared, %d redirects", len(reqs), redirects)
	return stderr, cfg
}

// sampleNginxMaps writes an nginx config whose redirects are all driven
// by maps, in each common idiom, one server per idiom, and returns its
// path and the requests to compare. The $request_uri map is shaped like
// real hand-written site maps: regex keys with unescaped dots, `\)`,
// `.*$`, `^literal$`, `~*`, keys with no literal prefix beyond `/`, ""
// values; the $uri map has `(.*)` captures with `$1` targets.
func sampleNginxMaps(t *testing.T, dir, addr string) (string, [][2]string) {
	t.Helper()
	var reqs [][2]string
	ask := func(host string, targets ...string) {
		for _, target := range targets {
			reqs = append(reqs, [2]string{host, target})
		}
	}
	var move strings.Builder
	for i := range 100 {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&move, "\"~^/doc/%d.pdf.*$\" \"/docs/%d.pdf\";\n", i, i)
		case 1:
			fmt.Fprintf(&move, "\"~^/Definition%d.hs$\" \"/static/build/Definition%d.hs\";\n", i, i)
		case 2:
			fmt.Fprintf(&move, "\"~^/GPT-%d\\).*$\" \"/gpt-%d\";\n", i, i)
		case 3:
			fmt.Fprintf(&move, "\"~*^/Shout-%d$\" \"/shout/%d\";\n", i, i)
		case 4:
			fmt.Fprintf(&move, "\"/exact-%d\" \"/exact-target/%d\";\n", i, i)
		}
	}
	move.WriteString("\"~^/[0-9]+-[a-z]+\\.html$\" \"/numbered\";\n\"~^/.*-old$\" \"/no-prefix\";\n\"/with?q=1\" \"/query-key\";\n")
	broken := "\"~^/doc/5.pdf-keep$\" \"\";\n\"/exact-gone\" \"\";\n\"~^/space$\" \"/a b\";\n"
	ask("maps.test", "/doc/0.pdf", "/doc/0.pdf/x?y=1", "/doc/0Xpdf", "/doc/5.pdf-keep", "/doc/5.pdf-keep?x=1", "/doc/5.pdf-other",
		"/Definition1.hs", "/Definition1.hs?v=2", "/definition1.hs", "/Definition1Xhs", "/GPT-2)", "/GPT-2)/more?a=b", "/GPT-2",
		"/Shout-3", "/SHOUT-3?x=1", "/shout-3", "/exact-9", "/EXACT-9", "/exact-9?x=1", "/exact-4", "/exact-gone", "/exact-gone?x=1",
		"/12-ab.html", "/12-ab.html?z=9", "/x-old", "/deep/y-old?q", "/with?q=1", "/WITH?Q=1", "/with?q=2", "/with", "/space", "/nothing")

	maps := "map $request_uri $new_uri {\n    include move.conf;\n    include broken.conf;\n}\n" +
		// $uri, with captures, "" and a default, inside location /.
		"map $uri $uri_to {\n    default \"\";\n    ~^/cap/(.*)$ /captured/$1;\n    ~*^/Img/(\\w+)\\.(png|jpg)$ /images/$1.$2;\n    /keep \"\";\n    ~^/keep /kept;\n    /rel new-page;\n    /dir/rel ../up;\n}\n" +
		// Unconditional return and rewrite with a default.
		"map $uri $always {\n    default https://www.example/;\n    /a /b;\n    ~^/p/(\\d+)$ https://www.example/page?id=$1;\n}\n" +
		"map $uri $rw {\n    default https://new.example/fallback;\n    /a https://new.example/b;\n    ~^/r/(.*)$ https://new.example/s/$1;\n}\n" +
		// Host and URI together.
		"map $host$request_uri $hr {\n    h1.test/old /new;\n    h2.test/old?x=1 /new-q;\n    ~^h1\\.test/re/(\\d+)$ /h1/$1;\n}\n" +
		"map $scheme://$host$request_uri $shr {\n    http://h2.test/s /t;\n    ~^https?://h1\\.test/u$ /v;\n}\n" +
		"map $host$uri $hu {\n    volatile;\n    h3.test/a /b;\n    ~^h3\\.test/c(.*)$ /d$1;\n}\n"
	ask("uri.test", "/cap/x/y", "/cap/x?q=1", "/cap/", "/Img/cat.PNG", "/img/dog.jpg?z", "/keep", "/keep/more", "/KEEP", "/rel", "/rel?x=1", "/dir/rel", "/other")
	ask("always.test", "/a", "/A", "/a?x=1", "/p/12", "/p/12?y=2", "/p/x", "/", "/anything?z=1")
	ask("rw.test", "/a", "/a?y=2", "/r/x/y", "/r/x?y=2", "/", "/elsewhere?k=v")
	ask("h1.test", "/old", "/old?x=1", "/re/7", "/re/7?a", "/u", "/u?z=1", "/s")
	ask("h2.test", "/old", "/old?x=1", "/OLD?X=1", "/s", "/s?q", "/u")
	ask("h3.test", "/a", "/a?q=1", "/c/x", "/cx?y", "/e")

	sites := fmt.Sprintf("server {\n    listen %[1]s default_server;\n    server_name maps.test;\n    if ($new_uri != \"\") {\n        rewrite ^(.*)$ $new_uri permanent;\n    }\n}\n"+
		"server {\n    listen %[1]s;\n    server_name uri.test;\n    location / {\n        if ($uri_to) {\n            return 301 $uri_to;\n        }\n    }\n}\n"+
		"server {\n    listen %[1]s;\n    server_name always.test;\n    return 302 $always;\n}\n"+
		"server {\n    listen %[1]s;\n    server_name rw.test;\n    rewrite ^ $rw permanent;\n}\n"+
		"server {\n    listen %[1]s;\n    server_name h1.test h2.test h3.test;\n    if ($hr) { return 301 $hr; }\n    if ($shr != \"\") { return 308 $shr; }\n    if ($hu) { rewrite ^ $hu redirect; }\n}\n", addr)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "maps/maps.conf": maps, "move.conf": move.String(), "broken.conf": broken, "sites/maps.conf": sites})
	return filepath.Join(dir, "nginx.conf"), reqs
}

// TestImportNginxMapsRoundTrip is the round trip of the map idioms:
// if/return, if/rewrite, unconditional return and rewrite with a default,
// maps on $uri, $request_uri, $host$uri, $host$request_uri and
// $scheme://$host$request_uri, "" values, and targets redirectd writes
// differently (a space, a relative target).
func TestImportNginxMapsRoundTrip(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	dir := t.TempDir()
	nginxAddr := testport.Free(t)
	conf, reqs := sampleNginxMaps(t, dir, nginxAddr)
	stderr, _ := roundTrip(t, nginxBin, dir, conf, nginxAddr, reqs)
	for _, want := range []string{"[[server_rewrite]] and [[location]] tables"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the report lacks %q:\n%s", want, stderr)
		}
	}
}

// TestImportNginxFileOnce names a file that the main file includes, as
// `import nginx nginx.conf sites-enabled/*` does: it is read once, and
// each untranslated construct is listed once.
func TestImportNginxFileOnce(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"nginx.conf": "http {\n    map $uri $v { /a /b; }\n    include site.conf;\n}\n",
		"site.conf":  "server {\n    listen 80;\n    if (-f $request_filename) { return 301 $v; }\n}\n",
	})
	code, _, stderr := runCmd("import", "nginx", "-o", filepath.Join(dir, "out"), filepath.Join(dir, "nginx.conf"), filepath.Join(dir, "site.conf"), filepath.Join(dir, "nginx.conf"))
	if code != 1 { // the if -f, which decides a redirect, is left out
		t.Fatalf("import: exit %d, want 1\n%s", code, stderr)
	}
	if n := strings.Count(stderr, "site.conf:3: if"); n != 1 {
		t.Errorf("the untranslated if is listed %d times, want once:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "site.conf is read through") {
		t.Errorf("the import does not say it skipped the included file:\n%s", stderr)
	}
}
