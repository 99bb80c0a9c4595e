package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// echoTargetHost answers a request with its target and Host as the body.
func echoTargetHost(c net.Conn) {
	defer c.Close()
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	body := req.RequestURI + " " + req.Host
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
}

// proxiedAnswer is a request's status and, for a redirect, its
// Location (port aside), for a 200 the origin's echo (its Host's port
// aside: each front end sends its own where it preserves the Host).
func proxiedAnswer(t *testing.T, addr, host, target string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", host, target, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return fmt.Sprintf("%d %s", resp.StatusCode, sameAsClient(resolve(t, "http://"+host+target, resp.Header.Get("Location"))))
	case resp.StatusCode == 200:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return "200 " + string(b)
	}
	return "not forwarded"
}

// TestImportApacheProxyPass: ProxyPass (and a RewriteRule [P] of its
// form) as an upstream group and a
// forwarding location, the matched prefix replaced by the URL's path;
// ProxyPreserveHost; mod_rewrite's rules before it, mod_alias's
// Redirects after it (a Redirect under a ProxyPass path is never
// reached); a virtual host's own and inherited ProxyPass. Apache and
// redirectd must forward the same requests with the same path and Host.
func TestImportApacheProxyPass(t *testing.T) {
	t.Parallel()
	bin := findApache(t)
	backend := testutil.Serve(t, echoTargetHost)
	dir := t.TempDir()
	addr := testport.Free(t)
	_, port, _ := strings.Cut(addr, ":")
	server := fmt.Sprintf(`RewriteEngine On
RewriteRule ^/app/old$ /app/new [R=301,L]
RewriteRule ^/rp/(.*)$ http://%[1]s/rp-v2/$1 [P,L]
Redirect /rp/red /elsewhere
Redirect /app/red /elsewhere
Redirect /plain /elsewhere
ProxyPass /app/ http://%[1]s/v1/
ProxyPassMatch ^/img/(.*\.png)$ http://%[1]s/images/$1
ProxyPassMatch ^/j/.*\.js$ http://%[1]s/static
Redirect /img /elsewhere
<VirtualHost *:%[2]s>
  ServerName main.test
  RewriteEngine On
  RewriteRule ^/app/old$ /app/new [R=301,L]
  RewriteRule ^/rp/(.*)$ http://%[1]s/rp-v2/$1 [P,L]
  RewriteCond %%{QUERY_STRING} ^to=node
  RewriteRule ^/n/(.*)$ http://%[1]s/node/$1 [P]
  RewriteRule ^/any-(.*)$ http://%[1]s/any/$1?x=1 [P,QSA]
</VirtualHost>
<VirtualHost *:%[2]s>
  ServerName kept.test
  ProxyPreserveHost On
  ProxyPass /api/ http://%[1]s/
</VirtualHost>
`, backend, port)
	writeFiles(t, dir, map[string]string{"httpd.conf": apacheConf(dir, addr, server), "www/index.html": "home\n",
		"www/.htaccess": fmt.Sprintf("RewriteEngine On\nRewriteRule ^app2/(.*)$ http://%s/app2/$1 [P,L]\n", backend)})
	conf := filepath.Join(dir, "httpd.conf")
	out := filepath.Join(dir, "out")
	code, _, stderr := runCmd("import", "apache", "-o", out, "-htaccess", "/="+filepath.Join(dir, "www", ".htaccess"), conf)
	t.Logf("import:\n%s", stderr)
	if code != 0 {
		t.Fatalf("import: exit %d", code)
	}
	runApache(t, bin, dir, conf, addr)
	srv := serveImport(t, out)
	forwarded := 0
	for _, host := range []string{"main.test", "kept.test", "other.test"} {
		for _, p := range []string{"/app/x", "/app/a/b?q=1", "/app/", "/app/old", "/app/red", "/plain", "/plain/y", "/api/z?k=v", "/api/", "/nothing", "/app/a%20b", "/rp/a", "/rp/a/b?c=d", "/rp/red", "/rp", "/app", "/api",
			"/img/a.png", "/img/b/c.png?x=1", "/img/a.gif", "/img/a%20b.png", "/j/x.js", "/j/y/z.js?v=2", "/j/x.css",
			"/n/a?to=node", "/n/a/b?to=nodes&k", "/n/a", "/any-thing", "/any-a%20b?q=2", "/app2/x", "/app2/y/z?w=1", "/app2", "/__apache_forward/apache-1/x"} {
			if host == "kept.test" && strings.HasPrefix(p, "/app2") {
				// A .htaccess's [P] forwards with the main server's
				// ProxyPreserveHost, not the virtual host's (noted).
				continue
			}
			a, r := proxiedAnswer(t, addr, host, p), proxiedAnswer(t, srv, host, p)
			a = strings.Replace(a, ":"+port, "", 1)
			r = strings.Replace(r, ":"+strings.Split(srv, ":")[1], "", 1)
			if testing.Verbose() {
				t.Logf("%s %s: %s", host, p, a)
			}
			if strings.HasPrefix(a, "200 ") {
				forwarded++
			}
			if a != r {
				t.Errorf("Host %s, %s: apache %q, redirectd %q", host, p, a, r)
			}
		}
	}
	if forwarded < 10 {
		t.Errorf("apache forwarded only %d requests: the fixture does not exercise ProxyPass", forwarded)
	}
}
