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

	"github.com/redirectd/redirectd/internal/testutil"
)

// TestServeLocations serves a config of [[server_rewrite]] and
// [[location]] tables with the real binary and asks it over loopback in
// raw bytes: the TOML as a person writes it answers as nginx would, and
// a forward carries the URI nginx would send.
func TestServeLocations(t *testing.T) {
	t.Parallel()
	echo := testutil.Serve(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		line, _ := br.ReadString('\n')
		for {
			if l, err := br.ReadString('\n'); err != nil || l == "\r\n" {
				break
			}
		}
		line = strings.TrimSpace(line)
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(line), line)
	})
	file := filepath.Join(t.TempDir(), "site.toml")
	os.WriteFile(file, []byte(fmt.Sprintf(`[server]
listen = "127.0.0.1:0"

[admin]
listen = "127.0.0.1:0"

[upstreams.docs]
servers = [%q]

[[server_rewrite]]
host = "www.example.com"
steps = 'return 308 https://example.com$request_uri;'

[[location]]
match = "exact"
path = "/healthz"
steps = 'return 200 "ok";'

[[location]]
path = "/docs/"
upstream = "docs"
upstream_uri = "/v2/"
steps = '''
rewrite ^(.*)/usage/?$ $1/usage/overview.html redirect;
rewrite ^/docs/keep/(.*)$ /kept/$1 break;
'''
`, echo)), 0o644)
	srv := startNode(t, nodeConfig{File: file})
	addr, stderr := srv.addr, srv.stderr
	for _, tc := range []struct{ req, want string }{
		{"GET /x?y HTTP/1.1\r\nHost: www.example.com\r\n", "308 https://example.com/x?y "},
		{"GET /healthz HTTP/1.1\r\nHost: example.com\r\n", "200  ok"},
		{"GET /docs/a/usage HTTP/1.1\r\nHost: example.com\r\n", "302 /docs/a/usage/overview.html "},
		{"GET /docs/a//b?q HTTP/1.1\r\nHost: example.com\r\n", "200  GET /v2/a/b?q HTTP/1.1"},
		{"GET /docs/keep/a HTTP/1.1\r\nHost: example.com\r\n", "200  GET /kept/a HTTP/1.1"},
	} {
		c, err := net.DialTimeout("tcp", addr, testutil.Patience)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(testutil.Patience))
		io.WriteString(c, tc.req+"Connection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: %v\n%s", tc.req, err, stderr)
		}
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		if got := fmt.Sprintf("%d %s %s", resp.StatusCode, resp.Header.Get("Location"), body); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.req, got, tc.want)
		}
	}
}
