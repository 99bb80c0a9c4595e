package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/internal/testutil"
)

// locationSiteNginx and locationSiteTOML are one site written for nginx
// and by hand for redirectd: %[1]s is the echo upstream.
const locationSiteNginx = `
if ($host = www.example.com) { return 308 https://example.com$request_uri; }
location = /healthz { return 200 "ok"; }
location = /drop { return 444; }
location = /gone { return 410; }
location / { proxy_pass http://%[1]s; }
location /docs/ {
    rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;
    rewrite ^/docs/keep/(.*)$ /kept/$1 break;
    rewrite ^/docs/old/(.*)$ /new/$1 last;
    rewrite ^/docs/perm/(.*)$ https://example.com/p/$1 permanent;
    proxy_pass http://%[1]s/v2/;
}
location /new/ { return 301 /final$uri$is_args$args; }
location ~* \.(png|jpg)$ { return 302 /img$uri; }
`

const locationSiteTOML = `
[upstreams.echo]
servers = [%[1]q]

[[server_rewrite]]
steps = 'if ($host = www.example.com) { return 308 https://example.com$request_uri; }'

[[location]]
match = "exact"
path = "/healthz"
steps = 'return 200 "ok";'

[[location]]
match = "exact"
path = "/drop"
steps = 'return 444;'

[[location]]
match = "exact"
path = "/gone"
steps = 'return 410;'

[[location]]
path = "/"
upstream = "echo"

[[location]]
path = "/docs/"
upstream = "echo"
upstream_uri = "/v2/"
steps = '''
rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;
rewrite ^/docs/keep/(.*)$ /kept/$1 break;
rewrite ^/docs/old/(.*)$ /new/$1 last;
rewrite ^/docs/perm/(.*)$ https://example.com/p/$1 permanent;
'''

[[location]]
path = "/new/"
steps = 'return 301 /final$uri$is_args$args;'

[[location]]
match = "regex_ci"
path = '\.(png|jpg)$'
steps = 'return 302 /img$uri;'
`

// TestServeLocationsAgainstNginx serves one site by a real nginx and by
// the redirectd binary from its hand-written TOML, with nginx's default
// absolute_redirect on both, and asks both the same requests in raw
// bytes: status, Location (its port aside), text bodies and the request
// line the upstream gets must agree.
func TestServeLocationsAgainstNginx(t *testing.T) {
	t.Parallel()
	bin := findNginx(t)
	echo := testutil.Serve(t, echoRequestLine)
	dir := t.TempDir()
	nginxAddr := testport.Free(t)
	conf := testutil.NginxHTTPHead(dir) + fmt.Sprintf("server {\nlisten %s default_server;\n%s\n}\n}\n", nginxAddr, fmt.Sprintf(locationSiteNginx, echo))
	writeFiles(t, dir, map[string]string{"nginx.conf": conf})
	testutil.RunNginx(t, bin, dir, filepath.Join(dir, "nginx.conf"), nginxAddr)
	file := filepath.Join(dir, "site.toml")
	os.WriteFile(file, []byte("[server]\nlisten = \"127.0.0.1:0\"\nabsolute_redirect = true\n\n[admin]\nlisten = \"127.0.0.1:0\"\n"+
		fmt.Sprintf(locationSiteTOML, echo)), 0o644)
	srv := startNode(t, nodeConfig{File: file})
	addr, stderr := srv.addr, srv.stderr
	for _, host := range []string{"example.com", "www.example.com"} {
		for _, p := range []string{"/healthz", "/drop", "/gone", "/x", "/x%20y?q=1", "/docs", "/docs/", "/docs/a/usage",
			"/docs/a//b?q", "/docs/keep/a%20b", "/docs/old/x?y=1", "/docs/perm/z", "/new/a", "/a/b.PNG", "/docs/x.jpg", "//docs/./a/../b",
			"http://www.example.com/abs?q", "http://example.com/docs/a//b?q"} {
			want, got := locationAnswer(t, nginxAddr, host, p), locationAnswer(t, addr, host, p)
			if want != got {
				t.Errorf("%s%s:\n nginx     %s\n redirectd %s\n%s", host, p, want, got, stderr)
			}
		}
	}
}

// echoRequestLine answers a request with its target as the body.
func echoRequestLine(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	line, _ := br.ReadString('\n')
	for {
		if l, err := br.ReadString('\n'); err != nil || l == "\r\n" {
			break
		}
	}
	fields := strings.Fields(line)
	target := ""
	if len(fields) == 3 {
		target = fields[1]
	}
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(target), target)
}

// locationAnswer asks addr for target on host and says what came back: the
// status, the Location with the server's own port left out, and the
// body where it is the site's text (2xx), or "closed" for no answer.
func locationAnswer(t *testing.T, addr, host, target string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	all, _ := io.ReadAll(c)
	if len(all) == 0 {
		return "closed"
	}
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(all))), nil)
	if err != nil {
		t.Fatalf("%s from %s: %v", target, addr, err)
	}
	body, _ := io.ReadAll(resp.Body)
	_, port, _ := net.SplitHostPort(addr)
	s := fmt.Sprintf("%d %s", resp.StatusCode, strings.Replace(resp.Header.Get("Location"), ":"+port+"/", ":PORT/", 1))
	if resp.StatusCode < 300 {
		s += " " + string(body)
	}
	return s
}
