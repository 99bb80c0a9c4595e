package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redirectd/redirectd/benchmarks/realmaps"
	"github.com/redirectd/redirectd/config/nginx"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/regexsample"
)

// TestImportNginxGwern imports a real site's 42,000-key map as the site
// serves it (SOURCE: `map $request_uri $new_uri { include move.conf;
// include broken.conf; }` and `if ($new_uri != "") { rewrite ^(.*)$
// $new_uri permanent; }`), with the files included where they lie. Its
// values hold what a Location check refuses as written: a relative "$u",
// "https:/host" typos, data:, irc:, rsync: and ftp: URLs, a bare
// //path, a newline. The import must pass check, and a real nginx and
// redirectd serving the import must answer a few hundred requests
// alike: the first keys, the last, keys spread between, misses, and the
// keys in other case and with a query.
func TestImportNginxGwern(t *testing.T) {
	t.Parallel()
	real := realmaps.Dir(t, "gwern")
	nginxBin := findNginx(t)
	dir := t.TempDir()
	addr := testport.Free(t)
	maps := fmt.Sprintf("map_hash_bucket_size 128;\nmap $request_uri $new_uri {\n    include %s;\n    include %s;\n}\n",
		filepath.Join(real, "move.conf"), filepath.Join(real, "broken.conf"))
	site := fmt.Sprintf("server {\n    listen %s default_server;\n    server_name gwern.net;\n    if ($new_uri != \"\" ) {\n        rewrite ^(.*)$ $new_uri permanent;\n    }\n}\n", addr)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "maps/gwern.conf": maps, "sites/gwern.conf": site})
	conf := filepath.Join(dir, "nginx.conf")

	dirs, err := nginx.ParseFile(conf, real)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range mapEntries(dirs) {
		if d.Name != "default" {
			keys = append(keys, d.Name)
		}
	}
	if len(keys) < 40000 {
		t.Fatalf("read %d keys of the map, want its 42,000", len(keys))
	}
	var reqs [][2]string
	ask := func(p string) { reqs = append(reqs, [2]string{"gwern.net", p}) }
	n := 0
	for i, k := range keys {
		if i >= 40 && i < len(keys)-40 && i%200 != 0 {
			continue // the first and last 40, one in 200 between
		}
		p, ok := keySample(k)
		if !ok {
			continue
		}
		n++
		ask(p)
		if n%3 == 0 {
			ask(strings.ToUpper(p))
		}
		if n%4 == 0 && !strings.Contains(p, "?") {
			ask(p + "?utm_source=x")
		}
		if n%5 == 0 {
			ask(p + "/probe-more")
		}
	}
	for i := range 20 {
		ask(fmt.Sprintf("/probe-miss-%d", i))
	}
	if len(reqs) < 300 {
		t.Fatalf("only %d requests", len(reqs))
	}
	// The server is written as the location model, its map whole (no
	// flat exception for a map of many regex keys), and answers every
	// request as nginx does: the values nginx sends as they are (data:,
	// irc:, a relative "$u", a second '?') included.
	stderr, _ := roundTripExcept(t, nginxBin, dir, conf, addr, reqs, nil, "-include-dir", real)
	if want := "server gwern.net: [[server_rewrite]] and [[location]] tables"; !strings.Contains(stderr, want) {
		t.Errorf("the report lacks %q", want)
	}
}

// mapEntries returns the entries of the map blocks in dirs, at any depth.
func mapEntries(dirs []*nginx.Directive) []*nginx.Directive {
	var out []*nginx.Directive
	for _, d := range dirs {
		if d.Name == "map" {
			out = append(out, d.Block...)
			continue
		}
		out = append(out, mapEntries(d.Block)...)
	}
	return out
}

// keySample returns a request target a map key matches, as a client
// sends it: an exact key as written, a regex key's sample
// (regexsample.Path). Keys Go's regexp does not read, and regexes it
// makes no path for, give none.
func keySample(key string) (string, bool) {
	src, ci := strings.CutPrefix(key, "~")
	if !ci {
		return clientTarget(key), strings.HasPrefix(key, "/")
	}
	src, fold := strings.CutPrefix(src, "*")
	if fold {
		src = "(?i)" + src
	}
	s, ok := regexsample.Path(src)
	if !ok {
		return "", false
	}
	return clientTarget(s), true
}

// clientTarget percent-encodes what a client never sends raw in a request
// target: bytes outside RFC 3986's unreserved, sub-delims, ':', '@', '/',
// '?' and '%' (and a '%' that starts no escape).
func clientTarget(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=:@/?", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// TestImportNginxValuesRoundTrip serves the values golden file's config
// (config/nginx/testdata/import/values.txt: map values in the shapes of
// a real site's map) with a real nginx and with redirectd's import of it,
// and compares their answers: every request agrees but those whose map
// entry the report says is left out.
func TestImportNginxValuesRoundTrip(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	golden, err := os.ReadFile(filepath.Join("..", "..", "config", "nginx", "testdata", "import", "values.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	addr := testport.Free(t)
	files := map[string]string{"nginx.conf": nginxConf(dir)}
	for _, part := range strings.Split(string(golden), "\n-- ")[1:] {
		name, text, _ := strings.Cut(part, " --\n")
		switch {
		case name == "nginx.conf":
			files["sites/values.conf"] = strings.ReplaceAll(text, "listen 80", "listen "+addr)
		case !strings.HasPrefix(name, "out/"):
			files[name] = text
		}
	}
	writeFiles(t, dir, files)
	var reqs [][2]string
	ask := func(host string, targets ...string) {
		for _, target := range targets {
			reqs = append(reqs, [2]string{host, target})
		}
	}
	ask("values.test", "/foo.", "/a/b.", "/a/b.?x=1", "/a/b/trackback", "/typo", "/typo?x=1", "/typo-http/x/y", "/dir/rel", "/dir/rel?q",
		"/rel-any/x", "/rel-any/x/y?z=1", "/quote", "/thread?id=1", "/thread?id=12&x=2", "/thread", "/Compet", "/compet", "/competition?x=1",
		"/COMPET", "/miss", "/gif", "/chat", "/dslash")
	// String keys fold ASCII case and keep their trailing dot.
	ask("uri.test", "/file.", "/FILE.", "/file", "/mixed-case", "/MIXED-CASE?x=1", "/Mixed-Case/more", "/other")
	// The locations send what nginx sends, data:, irc: and "//docs/x"
	// (absolute_redirect) included: nothing is left out.
	stderr, _ := roundTrip(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), addr, reqs)
	if strings.Contains(stderr, "left out") {
		t.Errorf("the import left something out:\n%s", stderr)
	}
}

// TestImportNginxKeyCase serves maps on every source the import takes,
// with string keys written in mixed case, to a real nginx and to
// redirectd's import, and asks them in other cases: nginx's map looks up
// the value with its ASCII letters lower-cased (the path, the query, the
// host, a percent escape's hex digits), and regex keys keep their own
// rule (~ with case, ~* without).
func TestImportNginxKeyCase(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	dir := t.TempDir()
	addr := testport.Free(t)
	maps := "map $uri $by_uri {\n    /Old/Page /new/page;\n    /CAF%C3%A9 /cafe-escaped;\n    /Caf\u00e9 /cafe-decoded;\n    /CAFÉ-2 /cafe-upper;\n    \"/A B\" /space;\n    /Dot. /dot;\n    ~^/Re/(\\d+)$ /re/$1;\n    ~*^/Ci/(\\w+)$ /ci/$1;\n}\n" +
		"map $request_uri $by_request_uri {\n    /Q?Key=Value /q-target;\n    /Esc%2Fx /esc-target;\n    /Plain /plain-target;\n    ~^/RQ/(\\d+)\\?ID=(\\w+)$ /rq/$1/$2;\n}\n" +
		"map $host$uri $by_host_uri {\n    Case.Test/Mixed /host-uri-target;\n}\n" +
		"map $host$request_uri $by_host_request_uri {\n    Case.Test/HRU?A=B /host-request-uri-target;\n}\n" +
		"map $host $by_host {\n    hostnames;\n    Moved.Test new.example;\n    .Wild.Test wild.example;\n}\n"
	sites := fmt.Sprintf("server {\n    listen %[1]s default_server;\n    server_name case.test;\n"+
		"    if ($by_uri) { return 301 $by_uri; }\n    if ($by_request_uri) { return 301 $by_request_uri; }\n"+
		"    if ($by_host_uri) { return 301 $by_host_uri; }\n    if ($by_host_request_uri) { return 301 $by_host_request_uri; }\n}\n"+
		"server {\n    listen %[1]s;\n    server_name moved.test .wild.test;\n    if ($by_host) { return 301 https://$by_host$request_uri; }\n}\n", addr)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "maps/case.conf": maps, "sites/case.conf": sites})
	var reqs [][2]string
	ask := func(host string, targets ...string) {
		for _, target := range targets {
			reqs = append(reqs, [2]string{host, target})
		}
	}
	// A $uri key is compared with the decoded path: "/CAF%C3%A9" is
	// reached by "/caf%25C3%25A9", "/Café" by "/CAF%C3%A9", and "/CAFÉ-2"
	// not by "/caf%C3%A9-2" (É is not an ASCII letter).
	ask("case.test", "/caf%25C3%25A9", "/CAF%25c3%25a9", "/CAF%C3%A9", "/caf%c3%a9?x=1", "/CAF%C3%89-2", "/caf%C3%89-2", "/caf%C3%A9-2",
		"/a%20b", "/A%20B?x=1", "/a+b")
	ask("case.test", "/old/page", "/OLD/PAGE?x=1", "/Old/Page/", "/caf%C3%A9", "/CAF%c3%a9", "/dot.", "/DOT.", "/dot",
		"/Re/12", "/re/12", "/ci/abc", "/CI/Abc",
		"/q?key=value", "/Q?KEY=VALUE", "/q?key=other", "/esc%2fx", "/ESC%2FX", "/plain", "/PLAIN?x=1",
		"/RQ/7?ID=ab", "/rq/7?id=ab", "/mixed", "/MIXED", "/hru?a=b", "/HRU?A=B", "/hru?a=c", "/nothing")
	ask("CASE.TEST", "/Mixed", "/hru?A=B")
	ask("moved.test", "/", "/A?b=C")
	ask("MOVED.TEST", "/x")
	ask("a.wild.test", "/y")
	ask("wild.test", "/z")
	roundTrip(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), addr, reqs)
}

// TestImportNginxGwernWholeConf imports the real site's whole
// gwern.net.conf (TLS, Lua, nested locations, internal rewrites, 900
// rewrites and the 42,000-key map), its includes pointed at where the
// files lie (the map files beside it; mime.types and a generated file it
// names, which are not there, as empty files), and checks the result:
// whatever the import cannot keep is in its report, its self-check finds
// no answer that differs, and `check` passes.
func TestImportNginxGwernWholeConf(t *testing.T) {
	t.Parallel()
	real := realmaps.Dir(t, "gwern")
	dir := t.TempDir()
	text, err := os.ReadFile(filepath.Join(real, "gwern.net.conf"))
	if err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.conf")
	conf := strings.NewReplacer("/home/gwern/gwern.net/static/nginx/redirect/", real+string(filepath.Separator),
		"/etc/nginx/mime.types", empty, "/etc/nginx/conf.d/memoriam.conf", empty).Replace(string(text))
	writeFiles(t, dir, map[string]string{"gwern.net.conf": conf, "empty.conf": ""})
	out := filepath.Join(dir, "out")
	code, _, stderr := runCmd("import", "nginx", "-o", out, "-include-dir", real, filepath.Join(dir, "gwern.net.conf"))
	if code != 1 { // it leaves out what redirectd cannot do (rsync: targets, file tests), and says so
		t.Fatalf("import: exit %d, want 1\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "  [[location_map]]\n") || !strings.Contains(stderr, "left out") {
		t.Errorf("the report does not count the map's entries and what it left out:\n%.3000s", stderr)
	}
	// Only the test of the site's files decides a redirect: the map
	// access_log if= reads is left out without counting.
	if !strings.Contains(stderr, "redirectd import nginx: 1 note above") || !strings.Contains(stderr, "$log_gwern_404_hits is read only by access_log") {
		t.Errorf("the report does not count only the file test as deciding a redirect:\n%s", stderr)
	}
	// What it leaves out is no redirect (a map for the access log, a test
	// of the site's files): its self-check finds every answer as nginx's.
	if strings.Contains(stderr, "differs:") {
		t.Errorf("the self-check found answers that differ from nginx's:\n%s", stderr)
	}
	if code, stdout, errs := runCmd("check", "-config", filepath.Join(out, "redirectd.toml")); code != 0 {
		t.Errorf("check of the import: exit %d\n%s\n%s", code, stdout, errs)
	}
}
