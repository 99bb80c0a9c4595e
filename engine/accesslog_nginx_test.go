package engine_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/testport"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
	"github.com/redirectd/redirectd/matcher"
)

// sameAsNginx is a layout of the variables whose values redirectd and
// nginx must agree on for the same request. The byte counts are compared
// with what the client received instead: nginx's own 301 has a body,
// redirectd's none.
const sameAsNginx = `$remote_addr|$remote_user|$host|$http_host|$request|$request_method|$request_uri|$uri|$args|$is_args|` +
	`$query_string|$server_protocol|$status|$http_user_agent|$http_referer|$http_x_request_id|$scheme|$upstream_addr|` +
	`$upstream_status|$sent_http_location`

const bytesLayout = `$body_bytes_sent|$bytes_sent`

const accessLogNginx = `worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
    log_format same '%[3]s';
    log_format bytes '%[4]s';
    access_log %[1]s/same.log same;
    access_log %[1]s/bytes.log bytes;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    server {
        listen 127.0.0.1:%[2]d;
        location = /old { return 301 https://example.com/new$is_args$args; }
        location / { proxy_pass http://%[5]s; }
    }
}
`

// accessLogRequests are the heads sent to both: case and port in Host,
// a trailing dot, HTTP/1.0, a path nginx normalises, an empty query, a
// HEAD, and header values that need escaping. Paths but /old go to the
// same upstream from both.
var accessLogRequests = []string{
	"GET /old?a=1&b=%20 HTTP/1.1\r\nHost: Example.COM:8080\r\nUser-Agent: curl/8.5.0\r\nReferer: https://r.example/\r\nX-Request-Id: abc\r\n\r\n",
	"GET /old HTTP/1.0\r\nHost: www.example.org.\r\n\r\n",
	"GET /a//b/./c/../%6Fld? HTTP/1.1\r\nHost: x\r\n\r\n",
	"HEAD /old HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /missing HTTP/1.1\r\nHost: x\r\nUser-Agent: a\"b\\c \xc3\xa9\r\nx-request-id: first\r\nX-Request-ID: second\r\n\r\n",
	"GET /up/page?q=1 HTTP/1.1\r\nHost: x\r\n\r\n",
}

// accessLogUpstream answers /up/ with a page, anything else with 404.
var accessLogUpstream = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/up/") {
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	io.WriteString(w, "from the upstream\n")
})

// TestAccessLogAsNginx sends the same requests to nginx and to redirectd,
// both logging the same log_format, and compares the lines: the fields
// must mean what nginx's mean. $body_bytes_sent and $bytes_sent must be
// the bytes each client received of the body and of the whole answer.
func TestAccessLogAsNginx(t *testing.T) {
	t.Parallel()
	bin := testutil.FindNginx(t)
	up := startUpstream(t, accessLogUpstream)
	dir := t.TempDir()
	nginxAddr, port := testport.Addr(t)
	runNginx(t, bin, dir, fmt.Sprintf(accessLogNginx, dir, port, sameAsNginx, bytesLayout, up), nginxAddr)

	same, err := accesslog.ParseFormat(sameAsNginx)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := accesslog.ParseFormat(bytesLayout)
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	var ourBytes []string
	for _, f := range []struct {
		format accesslog.Format
		out    *[]string
	}{{same, &ours}, {counts, &ourBytes}} {
		logFile := filepath.Join(t.TempDir(), "access.log")
		alog, err := accesslog.Open(logFile, f.format)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { alog.Close() })
		// One loop: the lines are in the order of the requests.
		pool := upstream.New(upstream.Config{Servers: []string{up}, ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second,
			WriteTimeout: 5 * time.Second, MaxConnsPerServer: 4}, nil)
		t.Cleanup(pool.Close)
		srv := startServerWith(t, engine.Options{AccessLog: alog, EventLoops: 1, Upstream: &engine.UpstreamOptions{Pool: pool}})
		set, err := matcher.Compile([]matcher.Rule{{Kind: matcher.Exact, From: "/old", To: "https://example.com/new", Status: 301}})
		if err != nil {
			t.Fatal(err)
		}
		srv.Swap(set)
		var received []string
		for _, req := range accessLogRequests {
			received = append(received, exchange(t, srv.Addr(), req))
		}
		*f.out = readLines(t, logFile, len(accessLogRequests))
		if f.out == &ourBytes {
			if diff := cmp.Diff(received, ourBytes); diff != "" {
				t.Errorf("redirectd's $body_bytes_sent|$bytes_sent against what the client received (-received +logged):\n%s", diff)
			}
		}
	}
	var nginxReceived []string
	for _, req := range accessLogRequests {
		nginxReceived = append(nginxReceived, exchange(t, nginxAddr, req))
	}
	theirs := readLines(t, filepath.Join(dir, "same.log"), len(accessLogRequests))
	if diff := cmp.Diff(theirs, ours); diff != "" {
		t.Errorf("log lines (-nginx +redirectd):\n%s", diff)
	}
	// Not a comparison of two dashes: the forwarded lines name the
	// upstream and its status.
	if last := ours[len(ours)-1]; !strings.HasSuffix(last, "|"+up+"|200|-") {
		t.Errorf("the forwarded request's line %q does not end with the upstream %s and its 200", last, up)
	}
	theirBytes := readLines(t, filepath.Join(dir, "bytes.log"), len(accessLogRequests))
	if diff := cmp.Diff(nginxReceived, theirBytes); diff != "" {
		t.Errorf("nginx's own $body_bytes_sent|$bytes_sent against what its client received (-received +logged):\n%s", diff)
	}
}

// exchange sends req on a new connection, reads the answer until the
// server closes or, once its first bytes came, 300 ms pass without a
// byte (the first may be late on a loaded machine), and returns
// "body_bytes|bytes" of what came.
func exchange(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testutil.Patience)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, req)
	var got []byte
	buf := make([]byte, 4096)
	for {
		quiet := 300 * time.Millisecond
		if len(got) == 0 {
			quiet = testutil.Patience
		}
		c.SetReadDeadline(time.Now().Add(quiet))
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	head, _, ok := strings.Cut(string(got), "\r\n\r\n")
	if !ok {
		t.Fatalf("%q: no answer head in %q", req, got)
	}
	return strconv.Itoa(len(got)-len(head)-4) + "|" + strconv.Itoa(len(got))
}
