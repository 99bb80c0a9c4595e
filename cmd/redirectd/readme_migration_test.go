package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// migrationBlock returns the fenced block of readme after its comment
// "<!-- README example: name".
func migrationBlock(t *testing.T, readme, name string) string {
	t.Helper()
	return testutil.FencedBlock(t, readme, "<!-- README example: "+name, "")
}

var (
	curlLine   = regexp.MustCompile(`(?m)^curl .*?((?:https://)?[a-z.]+:\d+(/\S*))(?:\s+# (.*))?$`)
	curlHost   = regexp.MustCompile(`Host: ([^']+)'`)
	curlExpect = regexp.MustCompile(`^(\d{3})(?:\s+Location: (\S+))?`)
	loadedIn   = regexp.MustCompile(`loaded and compiled in \S+`)
)

// TestReadmeMigration runs the top README's migration walk-through as
// written: the nginx site it shows is imported, checked and explained,
// and the outputs must be the README's; then the config it appends is
// served (its ports moved to free ones, the application replaced by a
// test server) beside a real nginx serving the same site, and every
// request of the walk-through, and more, must get the same status and
// Location from both, and the answer the README's curl lines say.
func TestReadmeMigration(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	bin := buildBinary(t) // before Chdir: it builds this folder's package
	dir := t.TempDir()
	t.Chdir(dir)
	site := migrationBlock(t, readme, "migration-nginx")
	writeFiles(t, dir, map[string]string{"old-site.conf": site})

	code, _, report := runCmd("import", "nginx", "-o", "site", "old-site.conf")
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, report)
	}
	if d := cmp.Diff(migrationBlock(t, readme, "migration-import"), report); d != "" {
		t.Errorf("import report (-README +got):\n%s", d)
	}
	code, out, errs := runCmd("check", "-config", "site/redirectd.toml")
	if code != 0 {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	norm := func(s string) string { return loadedIn.ReplaceAllString(s, "loaded and compiled in T") }
	if d := cmp.Diff(norm(migrationBlock(t, readme, "migration-check")), norm(out)); d != "" {
		t.Errorf("check (-README +got):\n%s", d)
	}
	code, out, errs = runCmd("explain", "-config", "site/redirectd.toml", "http://old.example/blog/2019/hello")
	if code != 0 {
		t.Fatalf("explain: exit %d\n%s", code, errs)
	}
	if d := cmp.Diff(migrationBlock(t, readme, "migration-explain"), out); d != "" {
		t.Errorf("explain (-README +got):\n%s", d)
	}

	// Step 4: the config the README appends, on ports of this test's own,
	// with the application the import forwards to.
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "app: %s %s\n", r.Host, r.URL)
	}))
	defer app.Close()
	appAddr := strings.TrimPrefix(app.URL, "http://")
	cfgBlock := migrationBlock(t, readme, "migration-config")
	_, appended, _ := strings.Cut(cfgBlock, "<<'EOF'\n")
	appended, _, ok := strings.Cut(appended, "\nEOF\n")
	if !ok {
		t.Fatalf("the README's step 4 appends no config:\n%s", cfgBlock)
	}
	// Its sed line gives the import's [server] table the listen.
	const setListen = `sed -i 's/^\[server\]$/[server]\nlisten = "127.0.0.1:8080"/' site/redirectd.toml`
	if !strings.Contains(cfgBlock, setListen) {
		t.Fatalf("the README's step 4 does not set [server] listen with %s:\n%s", setListen, cfgBlock)
	}
	cert, key := writeTestCert(t, filepath.Join(dir, "site"), "old.example", "www.old.example")
	os.Rename(cert, "site/old.example.crt")
	os.Rename(key, "site/old.example.key")
	plain, tlsAddr, admin := testport.Free(t), testport.Free(t), testport.Free(t)
	var imported []byte
	imported, err = os.ReadFile("site/redirectd.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(imported), "'127.0.0.1:8081'") {
		t.Fatalf("the import does not forward to the README's 127.0.0.1:8081:\n%s", imported)
	}
	if !strings.Contains(string(imported), "\n[server]\nabsolute_redirect = true\n") {
		t.Fatalf("the import wrote no [server] absolute_redirect = true for step 4's listen:\n%s", imported)
	}
	imported = []byte(strings.Replace(string(imported), "\n[server]\n", fmt.Sprintf("\n[server]\nlisten = %q\n", "127.0.0.1:8080"), 1))
	served := strings.NewReplacer("127.0.0.1:8081", appAddr, `"127.0.0.1:8080"`, fmt.Sprintf("%q", plain)).Replace(string(imported)) +
		strings.NewReplacer(`"127.0.0.1:8080"`, fmt.Sprintf("%q", plain), `"127.0.0.1:8443"`, fmt.Sprintf("%q", tlsAddr)).Replace(appended) +
		fmt.Sprintf("\n[admin]\nlisten = %q\n", admin)
	writeFiles(t, dir, map[string]string{"site/redirectd.toml": served})
	if code, out, errs := runCmd("check", "-config", "site/redirectd.toml"); code != 0 {
		t.Fatalf("check of step 4's config: exit %d\n%s%s", code, out, errs)
	}

	nginxBin := findNginx(t)
	ngPlain := testport.Free(t)
	ngSite := strings.NewReplacer("listen 80;", "listen "+ngPlain+";", "127.0.0.1:8081", appAddr).Replace(site)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "sites/site.conf": ngSite})
	startNode(t, nodeConfig{File: "site/redirectd.toml", Bin: bin})
	testutil.RunNginx(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), ngPlain)

	// The port in an absolute Location is each server's own: compared as
	// PORT.
	_, ngPort, _ := net.SplitHostPort(ngPlain)
	_, ourPort, _ := net.SplitHostPort(plain)
	_, ourTLSPort, _ := net.SplitHostPort(tlsAddr)
	ports := func(s string, port string) string { return strings.ReplaceAll(s, ":"+port+"/", ":PORT/") }

	// Step 5's curl lines, with what the README says they get.
	serve := migrationBlock(t, readme, "migration-serve")
	serve = strings.ReplaceAll(serve, "\n                                                          #", "   #")
	lines := curlLine.FindAllStringSubmatch(serve, -1)
	if len(lines) != 3 {
		t.Fatalf("step 5 has %d curl lines, want 3:\n%s", len(lines), serve)
	}
	for _, m := range lines {
		https := strings.HasPrefix(m[1], "https://")
		host := "old.example"
		if h := curlHost.FindStringSubmatch(m[0]); h != nil {
			host = h[1]
		}
		r := siteRequest{https: https, host: host, target: m[2]}
		at, port, scheme, readme := plain, ourPort, "http", "8080"
		if https {
			at, port, scheme, readme = tlsAddr, ourTLSPort, "https", "8443"
		}
		got := siteAnswer(t, at, r, scheme+"://"+host+":"+port+r.target)
		e := curlExpect.FindStringSubmatch(m[3])
		if e == nil {
			t.Fatalf("step 5: %q says no status", m[0])
		}
		want := e[1]
		if e[2] != "" {
			want += " " + strings.ReplaceAll(e[2], ":"+readme+"/", ":PORT/")
		}
		if got := ports(got, port); got != want {
			t.Errorf("step 5: %s: got %s, the README says %s", m[0], got, want)
		}
	}

	// The same site through nginx and redirectd.
	targets := []string{"/about-us", "/old-pricing.html", "/ABOUT-US", "/about-us?x=1", "/blog/2019/hello",
		"/blog/2019/hello?x=1", "/blog/x/hello", "/home", "/home?x=1", "/docs/a/b?y=2", "/docs/", "/app/login", "/", "/pricing"}
	redirects := 0
	for _, host := range []string{"old.example", "www.old.example"} {
		for _, target := range targets {
			r := siteRequest{host: host, target: target}
			want := ports(siteAnswer(t, ngPlain, r, "http://"+host+":"+ngPort+target), ngPort)
			got := ports(siteAnswer(t, plain, r, "http://"+host+":"+ourPort+target), ourPort)
			if got != want {
				t.Errorf("http://%s%s: nginx %s, redirectd %s", host, target, want, got)
			}
			if strings.HasPrefix(want, "3") {
				redirects++
			}
		}
	}
	if redirects < len(targets) {
		t.Errorf("nginx redirected only %d of %d requests: the sample does not exercise the site", redirects, 2*len(targets))
	}
}
