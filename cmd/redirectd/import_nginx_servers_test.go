package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/cmd/redirectd/internal/explain"
	"github.com/redirectd/redirectd/config"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// siteRequest is one request of a site round trip: over TLS or not.
type siteRequest struct {
	https        bool
	host, target string
}

// writeTestCert writes a certificate for names into dir as cert.crt and
// cert.key and returns their paths.
func writeTestCert(t *testing.T, dir string, names ...string) (string, string) {
	t.Helper()
	return testutil.NewCA(t).WriteCert(t, dir, "cert", time.Now().Add(24*time.Hour), names...)
}

// siteAnswer sends GET target with Host host to addr (over TLS when
// https) and returns the status and, for a redirect, the Location
// resolved against base: "404", "200", "301 https://...".
func siteAnswer(t *testing.T, addr string, r siteRequest, base string) string {
	t.Helper()
	var c net.Conn
	var err error
	if r.https {
		c, err = tls.DialWithDialer(&net.Dialer{Timeout: testutil.Patience}, "tcp", addr,
			&tls.Config{ServerName: strings.ToLower(r.host), InsecureSkipVerify: true})
	} else {
		c, err = net.DialTimeout("tcp", addr, testutil.Patience)
	}
	if err != nil {
		t.Fatalf("%s: %v", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", r.target, r.host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", r.host, r.target, err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "" {
		return fmt.Sprintf("%d %s", resp.StatusCode, resolve(t, base, loc))
	}
	return fmt.Sprint(resp.StatusCode)
}

// waitListening waits until every address accepts connections.
func waitListening(t *testing.T, what string, stderr fmt.Stringer, addrs ...string) {
	t.Helper()
	for _, a := range addrs {
		if !testutil.Eventually(testutil.Patience, func() bool {
			c, err := net.Dial("tcp", a)
			if err == nil {
				c.Close()
			}
			return err == nil
		}) {
			t.Fatalf("%s does not listen on %s: %s", what, a, stderr.String())
		}
	}
}

// siteRoundTrip imports the nginx config at conf (which listens on plain
// and tlsAddr), serves it with nginx and with redirectd (the import's
// [tls] listen moved to a port of its own), and compares the status and
// Location of every request, through the real servers and, for
// redirects, through explain's code. It returns the import's report.
func siteRoundTrip(t *testing.T, nginxBin, dir, conf, plain, tlsAddr string, reqs []siteRequest) string {
	t.Helper()
	out := filepath.Join(dir, "out")
	code, _, report := runCmd("import", "nginx", "-o", out, conf)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, report)
	}
	t.Logf("import:\n%s", report)
	if strings.Contains(report, "differs:") {
		t.Errorf("the import found answers that differ from nginx's:\n%s", report)
	}
	imported := filepath.Join(out, "redirectd.toml")
	cfg, err := config.Load(imported)
	if err != nil {
		t.Fatalf("the imported config does not load: %v", err)
	}
	if code, _, errs := runCmd("check", "-config", imported); code != 0 {
		t.Fatalf("check of the import: exit %d\n%s", code, errs)
	}
	testutil.RunNginx(t, nginxBin, dir, conf, plain, tlsAddr)

	body, _ := os.ReadFile(imported)
	addr, tlsServe, admin := testport.Free(t), testport.Free(t), testport.Free(t)
	listen := regexp.MustCompile(`(?m)^(\[tls\]\nlisten = ).*$`)
	if !listen.Match(body) {
		t.Fatalf("the import has no [tls] listen:\n%s", body)
	}
	body = listen.ReplaceAll(body, []byte(fmt.Sprintf("${1}%q", tlsServe)))
	served := filepath.Join(out, "served.toml")
	os.WriteFile(served, servedConfig(fmt.Sprintf("[server]\nlisten = %q\n[admin]\nlisten = %q\n[access_log]\nenabled = false\n", addr, admin), body), 0o644)
	startNode(t, nodeConfig{File: served})

	_, nginxPlainPort, _ := net.SplitHostPort(plain)
	_, nginxTLSPort, _ := net.SplitHostPort(tlsAddr)
	redirects := 0
	for _, r := range reqs {
		scheme, port, nginxAt, ours := "http", nginxPlainPort, plain, addr
		if r.https {
			scheme, port, nginxAt, ours = "https", nginxTLSPort, tlsAddr, tlsServe
		}
		// nginx makes a relative Location absolute with the request's
		// host and port (absolute_redirect): both are read against it.
		base := scheme + "://" + strings.ToLower(r.host) + ":" + port + r.target
		want := siteAnswer(t, nginxAt, r, base)
		if got := asNginxPort(siteAnswer(t, ours, r, base), ours, port); got != want {
			t.Errorf("%s://%s%s: nginx %s, redirectd serve %s", scheme, r.host, r.target, want, got)
		}
		if strings.HasPrefix(want, "3") || strings.HasPrefix(want, "410") {
			redirects++
			var ex bytes.Buffer
			if err := explain.URL(&ex, cfg.Set, scheme+"://"+r.host+r.target); err != nil {
				t.Fatal(err)
			}
			var status int
			var loc string
			for _, line := range strings.Split(ex.String(), "\n") {
				fmt.Sscanf(line, "status: %d", &status)
				if l, ok := strings.CutPrefix(line, "location: "); ok && !strings.HasPrefix(l, "none") {
					loc = " " + resolve(t, base, strings.TrimSpace(l))
				}
			}
			if got := fmt.Sprint(status) + loc; got != want {
				t.Errorf("%s://%s%s: nginx %s, explain %s", scheme, r.host, r.target, want, got)
			}
		}
	}
	if redirects < len(reqs)/3 {
		t.Errorf("nginx redirected only %d of %d requests: the sample does not exercise the import", redirects, len(reqs))
	}
	t.Logf("%d requests compared, %d redirects", len(reqs), redirects)
	return report
}

// TestImportNginxSitesRoundTrip is the round trip of a hand-written
// multi-server site, on a plain and a TLS port: five hosts, a named host
// beside a wildcard catch-all server, the certbot pair (a TLS server with
// the site's rules, a port-80 server sending each name to https with
// `if ($host = ...)`), a port-80 default catch-all, `if ($host = ...)` for
// a www host, nested locations, and locations serving content.
func TestImportNginxSitesRoundTrip(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	dir := t.TempDir()
	plain, tlsAddr := testport.Free(t), testport.Free(t)
	cert, key := writeTestCert(t, dir, "old.example", "www.old.example", "example.org", "*.example.org")
	site := fmt.Sprintf(`server {
    listen %[1]s;
    server_name www.example.org;
    location = /old { return 301 /new; }
    location /blog/ { return 301 https://blog.example.org$request_uri; }
    location /docs/ {
        location /docs/v1/ { return 301 /docs/v2/; }
        location ~ ^/docs/.*\.pdf$ { return 301 /files$uri; }
        location = /docs/index { return 301 /docs/; }
    }
    location ^~ /static/ {
        root /nonexistent;
        location /static/legacy/ { return 302 /assets/legacy/; }
    }
    location ~* \.php$ { return 410; }
    location / { try_files $uri =404; }
}
server {
    listen %[1]s;
    server_name .example.org;
    return 301 https://www.example.org/news$request_uri;
}
server {
    listen %[1]s;
    server_name example.com www.example.com;
    if ($host = 'www.example.com') {
        return 301 https://example.com$request_uri;
    }
    location = /a { return 301 /b; }
    location /shop/ { return 302 https://shop.example.com/; }
    error_page 404 /404.html;
}
server {
    server_name old.example www.old.example;
    location = /moved { return 301 /new; }
    location /docs/ { return 301 https://docs.example$request_uri; }
    location ~ ^/item/(\d+)$ { return 301 /items/$1; }
    listen %[2]s ssl; # managed by Certbot
    ssl_certificate %[3]s; # managed by Certbot
    ssl_certificate_key %[4]s; # managed by Certbot
}
server {
    if ($host = www.old.example) {
        return 301 https://$host$request_uri;
    } # managed by Certbot
    if ($host = old.example) {
        return 301 https://$host$request_uri;
    } # managed by Certbot
    listen %[1]s;
    server_name old.example www.old.example;
    return 404; # managed by Certbot
}
server {
    listen %[1]s default_server;
    server_name _;
    return 301 https://$host$request_uri;
}
`, plain, tlsAddr, cert, key)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "sites/site.conf": site})
	var reqs []siteRequest
	ask := func(https bool, host string, targets ...string) {
		for _, target := range targets {
			reqs = append(reqs, siteRequest{https, host, target})
		}
	}
	ask(false, "www.example.org", "/about", "/old", "/old?x=1", "/blog/a?b=c", "/docs/v1/x", "/docs/v1/x.pdf", "/docs/a.pdf?z=1",
		"/docs/index", "/docs/other", "/static/legacy/a", "/static/a.php", "/static/x", "/x.PHP", "/", "/news")
	ask(false, "example.org", "/", "/about?x=1")
	ask(false, "shop.example.org", "/cart")
	ask(false, "example.com", "/a", "/a?q=1", "/shop/x", "/missing", "/")
	ask(false, "www.example.com", "/a", "/missing?x=1", "/")
	ask(false, "old.example", "/about", "/moved", "/item/7?x=1", "/")
	ask(false, "www.old.example", "/about?q=2", "/moved")
	ask(true, "old.example", "/about", "/moved", "/moved?x=1", "/docs/a", "/item/7", "/item/x", "/")
	ask(true, "www.old.example", "/about", "/moved")
	ask(false, "other.example", "/x", "/y?z=1")
	ask(true, "other.example", "/x")
	report := siteRoundTrip(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), plain, tlsAddr, reqs)
	for _, want := range []string{"[[server_rewrite]] and [[location]] tables", "served by the original server itself", "root: nginx serves files", "try_files"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}

// TestImportNginxProxyRoundTrip is the round trip of a site that proxies
// what it does not redirect to an upstream block: the import forwards
// those requests to the same application, which answers 200.
func TestImportNginxProxyRoundTrip(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "app: %s %s\n", r.Host, r.URL)
	}))
	defer app.Close()
	dir := t.TempDir()
	plain, tlsAddr := testport.Free(t), testport.Free(t)
	cert, key := writeTestCert(t, dir, "app.example")
	site := fmt.Sprintf(`upstream app {
    server %[5]s;
    keepalive 8;
}
server {
    listen %[1]s;
    listen %[2]s ssl;
    ssl_certificate %[3]s;
    ssl_certificate_key %[4]s;
    server_name app.example;
    location = /old { return 301 /new; }
    location ~ ^/user/(\d+)$ { return 301 /users/$1; }
    location / {
        proxy_set_header Host $host;
        proxy_pass http://app;
    }
}
`, plain, tlsAddr, cert, key, strings.TrimPrefix(app.URL, "http://"))
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "sites/site.conf": site})
	var reqs []siteRequest
	for _, https := range []bool{false, true} {
		for _, target := range []string{"/old", "/old?x=1", "/user/5", "/user/x", "/", "/page?q=1", "/new"} {
			reqs = append(reqs, siteRequest{https, "app.example", target})
		}
	}
	report := siteRoundTrip(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), plain, tlsAddr, reqs)
	if strings.Contains(report, "proxies nothing") || strings.Contains(report, "go there instead") {
		t.Errorf("the report says the upstream differs from nginx's:\n%s", report)
	}
}
