package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// TestImportNginxRoutesRoundTrip is the round trip of a site whose
// servers proxy to several upstreams: a default server's location /, a
// server's prefix locations to a plain address, to an upstream block of
// two servers and to an https origin verified with a private CA, a
// server of `.api.example` names with a literal Host, and a wildcard
// server. nginx serving the config and redirectd serving the import get
// the same requests, for several hosts and paths, and each must reach
// the same origin, which echoes its name, the Host it was sent and the
// path: the same body from both (and the same status and Location for
// the one redirect).
func TestImportNginxRoutesRoundTrip(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	dir := t.TempDir()
	echo := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s host=%s path=%s\n", name, r.Host, r.URL.RequestURI())
		}
	}
	origin := func(name string) string {
		s := httptest.NewServer(echo(name))
		t.Cleanup(s.Close)
		return strings.TrimPrefix(s.URL, "http://")
	}
	fallback, www, shop1, shop2, api := origin("fallback"), origin("www"), origin("shop"), origin("shop"), origin("api")
	ca := testutil.NewCA(t)
	blog := httptest.NewUnstartedServer(echo("blog"))
	blog.TLS = &tls.Config{Certificates: []tls.Certificate{ca.TLSCert(t, "blog.internal")}}
	blog.StartTLS()
	t.Cleanup(blog.Close)
	plain := testport.Free(t)
	site := fmt.Sprintf(`upstream shop {
    least_conn;
    server %[2]s;
    server %[3]s;
}
server {
    listen %[1]s default_server;
    server_name _;
    location / {
        proxy_pass http://%[4]s;
    }
}
server {
    listen %[1]s;
    server_name www.example.com example.com;
    location = /old { return 301 /new; }
    location / {
        proxy_pass http://%[5]s;
    }
    location /shop/ {
        proxy_set_header Host $host;
        proxy_pass http://shop;
    }
    location /blog/ {
        proxy_ssl_verify on;
        proxy_ssl_server_name on;
        proxy_ssl_name blog.internal;
        proxy_ssl_trusted_certificate %[7]s;
        proxy_pass https://%[6]s;
    }
}
server {
    listen %[1]s;
    server_name .api.example;
    proxy_set_header Host api.internal;
    location / {
        proxy_pass http://%[8]s;
    }
}
server {
    listen %[1]s;
    server_name *.cdn.example;
    location / {
        proxy_pass http://shop;
    }
}
`, plain, shop1, shop2, fallback, www, strings.TrimPrefix(blog.URL, "https://"), filepath.Join(dir, "ca.pem"), api)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "sites/site.conf": site, "ca.pem": string(ca.CertPEM)})
	out := filepath.Join(dir, "out")
	code, _, report := runCmd("import", "nginx", "-o", out, filepath.Join(dir, "nginx.conf"))
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, report)
	}
	t.Logf("import:\n%s", report)
	for _, bad := range []string{"differs:", "does not proxy itself", "left out"} {
		if strings.Contains(report, bad) {
			t.Errorf("the report says %q: the import does not route as nginx does:\n%s", bad, report)
		}
	}
	testutil.RunNginx(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), plain)
	body, err := os.ReadFile(filepath.Join(out, "redirectd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	addr, admin := testport.Free(t), testport.Free(t)
	served := filepath.Join(out, "served.toml")
	head := fmt.Sprintf("[server]\nlisten = %q\n[admin]\nlisten = %q\n[access_log]\nenabled = false\n", addr, admin)
	if err := os.WriteFile(served, servedConfig(head, body), 0o644); err != nil {
		t.Fatal(err)
	}
	startNode(t, nodeConfig{File: served})

	_, port, _ := net.SplitHostPort(plain)
	origins := map[string]int{}
	hosts := []string{"www.example.com", "example.com", "api.example", "v1.api.example", "img.cdn.example", "unknown.test"}
	paths := []string{"/", "/page?q=1", "/shop/item", "/shop", "/blog/post", "/blog", "/old", "/api/x"}
	for _, h := range hosts {
		for _, p := range paths {
			base := "http://" + h + ":" + port + p
			want := routedAnswer(t, plain, h, p, base)
			got := asNginxPort(routedAnswer(t, addr, h, p, base), addr, port)
			if got != want {
				t.Errorf("http://%s%s: nginx %q, redirectd serve %q", h, p, want, got)
			}
			origins[strings.Fields(want + " none")[1]]++
		}
	}
	for _, name := range []string{"fallback", "www", "shop", "blog", "api"} {
		if origins[name] == 0 {
			t.Errorf("no request reached origin %s through nginx (%v): the sample does not exercise it", name, origins)
		}
	}
	t.Logf("%d requests compared, by origin: %v", len(hosts)*len(paths), origins)
}

// routedAnswer sends GET target with Host host to addr (over TLS when
// base is https) and returns the
// status and what the origin echoed (its name, the Host it got, the
// path), or the Location of a redirect resolved against base.
func routedAnswer(t *testing.T, addr, host, target, base string) string {
	t.Helper()
	var c net.Conn
	var err error
	if strings.HasPrefix(base, "https:") {
		c, err = tls.DialWithDialer(&net.Dialer{Timeout: testutil.Patience}, "tcp", addr, &tls.Config{ServerName: host, InsecureSkipVerify: true})
	} else {
		c, err = net.DialTimeout("tcp", addr, testutil.Patience)
	}
	if err != nil {
		t.Fatalf("%s: %v", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", host, target, err)
	}
	defer resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "" {
		return fmt.Sprintf("%d %s", resp.StatusCode, resolve(t, base, loc))
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Sprint(resp.StatusCode)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(b)))
}

// TestImportNginxRoutesTLSRoundTrip is certbot's layout for an
// application: the plain port redirects every name to https, the TLS
// server proxies / to the application and /api/ to another origin, and
// location /ws/ sets only Upgrade and Connection, so nginx sends it
// $proxy_host rather than the server's Host $host. The same requests
// over both kinds of port must get the same redirect, or reach the same
// origin with the same Host and path, from nginx and from redirectd.
func TestImportNginxRoutesTLSRoundTrip(t *testing.T) {
	t.Parallel()
	nginxBin := findNginx(t)
	dir := t.TempDir()
	origin := func(name string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s host=%s path=%s\n", name, r.Host, r.URL.RequestURI())
		}))
		t.Cleanup(s.Close)
		return strings.TrimPrefix(s.URL, "http://")
	}
	app, api := origin("app"), origin("api")
	plain, tlsAddr := testport.Free(t), testport.Free(t)
	cert, key := writeTestCert(t, dir, "app.example", "www.app.example")
	site := fmt.Sprintf(`server {
    listen %[1]s;
    server_name app.example www.app.example;
    if ($host = www.app.example) { return 301 https://$host$request_uri; }
    if ($host = app.example) { return 301 https://$host$request_uri; }
    return 404;
}
server {
    listen %[2]s ssl;
    server_name app.example www.app.example;
    ssl_certificate %[3]s;
    ssl_certificate_key %[4]s;
    proxy_set_header Host $host;
    location / {
        proxy_pass http://%[5]s;
    }
    location /api/ {
        proxy_pass http://%[6]s;
    }
    location /ws/ {
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection "upgrade";
        proxy_pass http://%[5]s;
    }
}
`, plain, tlsAddr, cert, key, app, api)
	writeFiles(t, dir, map[string]string{"nginx.conf": nginxConf(dir), "sites/site.conf": site})
	out := filepath.Join(dir, "out")
	code, _, report := runCmd("import", "nginx", "-o", out, filepath.Join(dir, "nginx.conf"))
	if code != 0 {
		t.Fatalf("import: exit %d\n%s", code, report)
	}
	t.Logf("import:\n%s", report)
	if strings.Contains(report, "differs:") {
		t.Errorf("the import found answers that differ from nginx's:\n%s", report)
	}
	testutil.RunNginx(t, nginxBin, dir, filepath.Join(dir, "nginx.conf"), plain, tlsAddr)
	body, err := os.ReadFile(filepath.Join(out, "redirectd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	addr, tlsServe, admin := testport.Free(t), testport.Free(t), testport.Free(t)
	listen := regexp.MustCompile(`(?m)^(\[tls\]\nlisten = ).*$`)
	if !listen.Match(body) {
		t.Fatalf("the import has no [tls] listen:\n%s", body)
	}
	body = listen.ReplaceAll(body, []byte(fmt.Sprintf("${1}%q", tlsServe)))
	served := filepath.Join(out, "served.toml")
	head := fmt.Sprintf("[server]\nlisten = %q\n[admin]\nlisten = %q\n[access_log]\nenabled = false\n", addr, admin)
	if err := os.WriteFile(served, servedConfig(head, body), 0o644); err != nil {
		t.Fatal(err)
	}
	startNode(t, nodeConfig{File: served})

	_, plainPort, _ := net.SplitHostPort(plain)
	_, tlsPort, _ := net.SplitHostPort(tlsAddr)
	origins := map[string]int{}
	n := 0
	for _, https := range []bool{false, true} {
		scheme, port, nginxAt, ours := "http", plainPort, plain, addr
		if https {
			scheme, port, nginxAt, ours = "https", tlsPort, tlsAddr, tlsServe
		}
		for _, h := range []string{"app.example", "www.app.example"} {
			for _, p := range []string{"/", "/page?q=1", "/api/items", "/api", "/ws/chat", "/ws"} {
				base := scheme + "://" + h + ":" + port + p
				want := routedAnswer(t, nginxAt, h, p, base)
				if got := asNginxPort(routedAnswer(t, ours, h, p, base), ours, port); got != want {
					t.Errorf("%s://%s%s: nginx %q, redirectd serve %q", scheme, h, p, want, got)
				}
				origins[strings.Fields(want + " none")[1]]++
				n++
			}
		}
	}
	for _, name := range []string{"app", "api"} {
		if origins[name] == 0 {
			t.Errorf("no request reached origin %s through nginx (%v): the sample does not exercise it", name, origins)
		}
	}
	t.Logf("%d requests compared, by origin: %v", n, origins)
}
