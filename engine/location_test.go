package engine_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// absoluteRules are served by redirectd and, as the locations of
// absoluteNginx, by nginx.
var absoluteRules = []matcher.Rule{
	{Kind: matcher.Exact, From: "/old", To: "/new-page", Status: 301},
	{Kind: matcher.Exact, From: "/away", To: "https://other.example/x", Status: 302},
	{Kind: matcher.Exact, From: "/rel", To: "sibling", Status: 301},
}

const absoluteNginx = `worker_processes 1;
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
    server {
        listen 127.0.0.1:%[2]d;
        listen 127.0.0.1:%[3]d ssl;
        ssl_certificate %[1]s/cert.pem;
        ssl_certificate_key %[1]s/key.pem;
        location = /old { return 301 /new-page$is_args$args; }
        location = /away { return 302 https://other.example/x; }
        location = /rel { return 301 sibling; }
    }
}
`

// absoluteRequests are the heads compared: Host names in the spellings
// nginx rewrites (case, port, trailing dot, IPv6), none at all, and an
// absolute-form target.
var absoluteRequests = []string{
	"GET /old HTTP/1.1\r\nHost: example.com\r\n\r\n",
	"GET /old?x=1 HTTP/1.1\r\nHost: Example.COM\r\n\r\n",
	"GET /old HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
	"GET /old HTTP/1.1\r\nHost: example.com.\r\n\r\n",
	"GET /old HTTP/1.1\r\nHost: [::1]:99\r\n\r\n",
	"GET /old HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
	"GET /old HTTP/1.0\r\n\r\n",
	"GET http://abs.example:81/old HTTP/1.1\r\nHost: abs.example:81\r\n\r\n",
	"GET /away HTTP/1.1\r\nHost: example.com\r\n\r\n",
	"GET /rel HTTP/1.1\r\nHost: example.com\r\n\r\n",
}

// TestAbsoluteRedirectAsNginx serves the same redirects with nginx (its
// default absolute_redirect on) and with redirectd's absolute_redirect,
// each on a plain and a TLS listener, and compares the Locations, with
// nginx's ports read as redirectd's.
func TestAbsoluteRedirectAsNginx(t *testing.T) {
	nginxBin := testutil.FindNginx(t)
	srv := startAbsolute(t, engine.Options{AbsoluteRedirect: true, TLS: testTLSOptions(t)})
	nPlain, nTLS := startNginx(t, nginxBin)
	plain, secure := srv.Addr(), srv.TLSAddr()
	ours := strings.NewReplacer(":"+port(nPlain), ":"+port(plain), ":"+port(nTLS), ":"+port(secure))
	for _, req := range absoluteRequests {
		for _, over := range []struct {
			name        string
			nginx, ours string
			tls         bool
		}{{"plain", nPlain, plain, false}, {"tls", nTLS, secure, true}} {
			want := ours.Replace(rawLocation(t, over.nginx, over.tls, req))
			got := rawLocation(t, over.ours, over.tls, req)
			if got != want {
				t.Errorf("%s %q: Location %q, nginx %q", over.name, req, got, want)
			}
		}
	}
}

// TestAbsoluteRedirect checks what nginx has no part in: the default
// (relative, as configured), a trusted proxy's X-Forwarded-Proto, and
// the port taken from the Host as Apache takes it (UseCanonicalName Off;
// cmd/redirectd's TestImportApachePorts compares with a real Apache).
func TestAbsoluteRedirect(t *testing.T) {
	off := startAbsolute(t, engine.Options{})
	on := startAbsolute(t, engine.Options{AbsoluteRedirect: true})
	host := startAbsolute(t, engine.Options{AbsoluteRedirect: true, RedirectPortFromHost: true})
	p, hp := port(on.Addr()), port(host.Addr())
	for _, c := range []struct {
		name string
		srv  *engine.Server
		req  string
		want string
	}{
		{"off", off, "GET /old?a=1 HTTP/1.1\r\nHost: example.com\r\n\r\n", "/new-page?a=1"},
		{"on", on, "GET /old?a=1 HTTP/1.1\r\nHost: example.com\r\n\r\n", "http://example.com:" + p + "/new-page?a=1"},
		// Behind a TLS terminator: its scheme, and the port the client
		// asked it for, not the listener's.
		{"proxied https", on, "GET /old HTTP/1.1\r\nHost: example.com\r\nX-Forwarded-Proto: https\r\n\r\n", "https://example.com/new-page"},
		{"proxied https port", on, "GET /old HTTP/1.1\r\nHost: example.com:8443\r\nX-Forwarded-Proto: https\r\n\r\n", "https://example.com:8443/new-page"},
		{"proxied http", on, "GET /old HTTP/1.1\r\nHost: example.com\r\nX-Forwarded-Proto: http\r\n\r\n", "http://example.com:" + p + "/new-page"},
		{"absolute to", on, "GET /away HTTP/1.1\r\nHost: example.com\r\n\r\n", "https://other.example/x"},
		// The port the Host names, none for none or the scheme's
		// default, whatever the listener's; without a Host the
		// listener's address and port, which a client can reach.
		{"host's port: none", host, "GET /old HTTP/1.1\r\nHost: example.com\r\n\r\n", "http://example.com/new-page"},
		{"host's port: 8080", host, "GET /old HTTP/1.1\r\nHost: Example.COM.:8080\r\n\r\n", "http://example.com:8080/new-page"},
		{"host's port: the listener's", host, "GET /old HTTP/1.1\r\nHost: example.com:" + hp + "\r\n\r\n", "http://example.com:" + hp + "/new-page"},
		{"host's port: 80", host, "GET /old HTTP/1.1\r\nHost: example.com:080\r\n\r\n", "http://example.com/new-page"},
		{"host's port: https 443", host, "GET /old HTTP/1.1\r\nHost: example.com:443\r\nX-Forwarded-Proto: https\r\n\r\n", "https://example.com/new-page"},
		{"host's port: no Host", host, "GET /old HTTP/1.0\r\n\r\n", "http://127.0.0.1:" + hp + "/new-page"},
	} {
		if got := rawLocation(t, c.srv.Addr(), false, c.req); got != c.want {
			t.Errorf("%s: Location %q, want %q", c.name, got, c.want)
		}
	}
}

func startAbsolute(t *testing.T, opts engine.Options) *engine.Server {
	t.Helper()
	srv := startServerWith(t, opts)
	set, err := matcher.Compile(absoluteRules)
	if err != nil {
		t.Fatal(err)
	}
	srv.Swap(set)
	return srv
}

// startNginx runs nginx on absoluteNginx and returns its plain and TLS
// addresses.
func startNginx(t *testing.T, bin string) (plain, secure string) {
	t.Helper()
	dir := t.TempDir()
	cert, _ := testCertificate(t)
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "cert.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o644)
	os.WriteFile(filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}), 0o600)
	plain, pp := testport.Addr(t)
	secure, sp := testport.Addr(t)
	runNginx(t, bin, dir, fmt.Sprintf(absoluteNginx, dir, pp, sp), plain, secure)
	return plain, secure
}

// runNginx runs nginx in dir on the config text conf until the test ends,
// and waits until it listens on addrs.
func runNginx(t *testing.T, bin, dir, text string, addrs ...string) {
	t.Helper()
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.RunNginx(t, bin, dir, conf, addrs...)
}

// rawLocation sends req as it is to addr (over TLS when secure) and
// returns the answer's Location.
func rawLocation(t *testing.T, addr string, secure bool, req string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if secure {
		c = tls.Client(c, &tls.Config{ServerName: "example.com", InsecureSkipVerify: true})
	}
	c.SetDeadline(time.Now().Add(testutil.Patience))
	if _, err := c.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %q: %v", addr, req, err)
	}
	resp.Body.Close()
	return resp.Header.Get("Location")
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	if _, err := strconv.Atoi(p); err != nil {
		return addr
	}
	return p
}
