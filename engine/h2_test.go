package engine_test

import (
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/upstream"
)

// h2TLSOptions are testTLSOptions offering h2 first, as the daemon does,
// with an HSTS value.
func h2TLSOptions(t testing.TB) *engine.TLSOptions {
	o := testTLSOptions(t)
	o.Config.NextProtos = []string{"h2", "http/1.1"}
	o.HSTS = "max-age=60"
	return o
}

// startH2 runs the server with testRules, opts and a TLS listener that
// offers h2.
func startH2(t *testing.T, opts engine.Options) *engine.Server {
	t.Helper()
	if opts.TLS == nil {
		opts.TLS = h2TLSOptions(t)
	}
	return overTLS.start(t, opts)
}

// clientTLS is the client's TLS configuration for the test certificate,
// offering protos.
func clientTLS(t testing.TB, protos ...string) *tls.Config {
	_, roots := testCertificate(t)
	return &tls.Config{RootCAs: roots, ServerName: "127.0.0.1", NextProtos: protos}
}

// clientTimeout bounds a test client's request only to end a hung test
// with a message: it is no measure. Under the race detector on a machine
// at load 15, TestH2Forward's 3 MB upload took 1.3 to 4.3 s (27 ms
// without the detector) and failed five runs in five at 5 s.
const clientTimeout = time.Minute

// h2Client is net/http's client with HTTP/2 alone (its bundled x/net
// http2), following no redirect.
func h2Client(t testing.TB) *http.Client {
	tr := &http.Transport{TLSClientConfig: clientTLS(t), Protocols: new(http.Protocols)}
	tr.Protocols.SetHTTP2(true) // HTTP/2 alone: ALPN h2
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: clientTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// h1Client is net/http's HTTP/1.1 client over TLS, HTTP/2 off.
func h1Client(t testing.TB) *http.Client {
	tr := &http.Transport{TLSClientConfig: clientTLS(t, "http/1.1"), TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: clientTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// h2Answer is what the tests compare of an answer.
type h2Answer struct {
	Proto        int
	Status       int
	Location     string
	Body         string
	HSTS         string
	Vary         string
	ContentType  string
	ConnectionHd string
}

func doRequest(t *testing.T, c *http.Client, method, url, host, body string) h2Answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: body: %v", method, url, err)
	}
	return h2Answer{Proto: resp.ProtoMajor, Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(b),
		HSTS: resp.Header.Get("Strict-Transport-Security"), Vary: resp.Header.Get("Vary"),
		ContentType: resp.Header.Get("Content-Type"), ConnectionHd: resp.Header.Get("Connection")}
}

// TestH2SameAnswers sends a table of requests over HTTP/2 and over
// HTTP/1.1 (both over TLS) and expects the same status, Location, body
// and fields, and the HSTS field on each.
func TestH2SameAnswers(t *testing.T) {
	t.Parallel()
	srv := startH2(t, engine.Options{})
	base := "https://" + srv.TLSAddr()
	h2c, h1c := h2Client(t), h1Client(t)
	tests := []struct {
		name, method, path, host, body string
		status                         int
		location                       string
	}{
		{"exact", "GET", "/old", "a", "", 301, "https://example.com/new"},
		{"exact with query", "GET", "/old?x=1&y=2", "a", "", 301, "https://example.com/new?x=1&y=2"},
		{"query conditions", "GET", "/old?ref=&utm_source=newsletter", "a", "", 302, "https://example.com/newsletter"},
		{"prefix", "GET", "/docs/a/b?q", "a", "", 302, "https://docs.example.com/a/b?q"},
		{"regex", "GET", "/blog/12/hello", "a", "", 308, "https://example.com/posts/12/hello"},
		{"host rule", "GET", "/only-here", "Shop.Example.com:8080", "", 307, "https://shop.example.com/moved"},
		{"host rule, other host", "GET", "/only-here", "example.com", "", 404, ""},
		{"miss", "GET", "/nothing", "a", "", 404, ""},
		{"HEAD miss", "HEAD", "/nothing", "a", "", 404, ""},
		{"HEAD redirect", "HEAD", "/old", "a", "", 301, "https://example.com/new"},
		{"POST redirect with body", "POST", "/old", "a", "hello", 301, "https://example.com/new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := doRequest(t, h2c, tt.method, base+tt.path, tt.host, tt.body)
			if got.Proto != 2 {
				t.Fatalf("answered over HTTP/%d, want 2", got.Proto)
			}
			if got.Status != tt.status || got.Location != tt.location {
				t.Errorf("h2: %d %q, want %d %q", got.Status, got.Location, tt.status, tt.location)
			}
			if got.HSTS != "max-age=60" {
				t.Errorf("h2: Strict-Transport-Security %q, want max-age=60", got.HSTS)
			}
			want := doRequest(t, h1c, tt.method, base+tt.path, tt.host, tt.body)
			want.Proto = 2
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("h2 answer differs from HTTP/1.1's (-h1 +h2):\n%s", diff)
			}
		})
	}
}

// TestH2Forward forwards misses from an HTTP/2 client to a real upstream
// over HTTP/1.1: GET, HEAD, POST with a body, a large streamed answer, and
// the upstream's errors.
func TestH2Forward(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("0123456789", 50_000) // 500 kB: several windows
	mux := http.NewServeMux()
	mux.Handle("/", echoUpstream("up"))
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, big) })
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) })
	addr := startUpstream(t, mux)
	pool := testPool(t, upstream.Config{Servers: []string{addr}}, nil)
	srv := startH2(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}})
	base := "https://" + srv.TLSAddr()
	c := h2Client(t)

	got := doRequest(t, c, "GET", base+"/page?q=1", "site.example", "")
	if got.Proto != 2 || got.Status != 200 || !strings.Contains(got.Body, "GET /page?q=1") || !strings.Contains(got.Body, "X-Forwarded-Proto: https") {
		t.Errorf("GET: %+v", got)
	}
	if got.HSTS != "max-age=60" {
		t.Errorf("forwarded answer: Strict-Transport-Security %q, want max-age=60", got.HSTS)
	}
	got = doRequest(t, c, "POST", base+"/form", "site.example", "a=1&b=2")
	if got.Status != 200 || !strings.Contains(got.Body, "POST /form") || !strings.Contains(got.Body, "body 7 ") {
		t.Errorf("POST: %+v", got)
	}
	// An upload past what engine/h2 buffers (1 MiB) is streamed.
	upload := strings.Repeat("u", 3_000_000)
	got = doRequest(t, c, "POST", base+"/upload", "site.example", upload)
	if want := fmt.Sprintf("body 3000000 %x", sha256.Sum256([]byte(upload))); got.Status != 200 || !strings.Contains(got.Body, want) {
		t.Errorf("3 MB upload: status %d, want 200 and %q in %q", got.Status, want, tail(got.Body))
	}
	got = doRequest(t, c, "HEAD", base+"/page", "site.example", "")
	if got.Status != 200 || got.Body != "" {
		t.Errorf("HEAD: %+v", got)
	}
	got = doRequest(t, c, "GET", base+"/big", "site.example", "")
	if got.Status != 200 || got.Body != big {
		t.Errorf("big answer: status %d, %d bytes, want 200 and %d bytes", got.Status, len(got.Body), len(big))
	}
	got = doRequest(t, c, "GET", base+"/gone", "site.example", "")
	if got.Status != 404 {
		t.Errorf("upstream 404 relayed as %d", got.Status)
	}
	// A redirect rule still answers locally.
	got = doRequest(t, c, "GET", base+"/old", "site.example", "")
	if got.Status != 301 || got.Location != "https://example.com/new" {
		t.Errorf("rule under forwarding: %+v", got)
	}
}

// TestH2UpstreamSwitchesProtocols: an upstream's 101 cannot be carried by
// HTTP/2 (RFC 9113 8.6): the stream gets 502, never :status 101.
func TestH2UpstreamSwitchesProtocols(t *testing.T) {
	t.Parallel()
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		for {
			if _, err := rc.readHead(5 * time.Second); err != nil {
				return
			}
			rc.c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"))
		}
	})
	pool := testPool(t, upstream.Config{Servers: []string{u.addr}}, nil)
	srv := startH2(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}})
	got := doRequest(t, h2Client(t), "GET", "https://"+srv.TLSAddr()+"/chat", "site.example", "")
	if got.Proto != 2 || got.Status != 502 || !strings.Contains(got.Body, "informational") {
		t.Errorf("an upstream's 101 over HTTP/2: %+v, want 502", got)
	}
}

// TestH2UpstreamCutShort: an answer the upstream cuts short before any
// of it was sent gets 502 on the stream; one whose head has gone ends
// with RST_STREAM, never as a whole answer.
func TestH2UpstreamCutShort(t *testing.T) {
	t.Parallel()
	u := startRawUpstream(t, func(u *rawUpstream, rc *rawConn) {
		head, err := rc.readHead(5 * time.Second)
		if err != nil {
			return
		}
		n := 1000
		if strings.Contains(head, "/big") {
			n = 100_000
		}
		fmt.Fprintf(rc.c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n1234567", n)
	})
	pool := testPool(t, upstream.Config{Servers: []string{u.addr}}, nil)
	srv := startH2(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}})
	c := h2Client(t)
	got := doRequest(t, c, "GET", "https://"+srv.TLSAddr()+"/small", "site.example", "")
	if got.Status != 502 || !strings.Contains(got.Body, "cut short") {
		t.Errorf("small answer cut short: %+v, want 502", got)
	}
	resp, err := c.Get("https://" + srv.TLSAddr() + "/big")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("large answer cut short: read %d bytes whole, want a reset stream", len(b))
	}
}

// TestH2AccessLog: HTTP/2 streams are logged as HTTP/1.1 requests are,
// with HTTP/2.0 as the protocol: a redirect with its Location, and a
// forwarded miss with the upstream's status.
func TestH2AccessLog(t *testing.T) {
	t.Parallel()
	addr := startUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		io.WriteString(w, "from upstream\n")
	}))
	logFile := filepath.Join(t.TempDir(), "access.log")
	alog, err := accesslog.Open(logFile, accesslog.Combined)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() })
	pool := testPool(t, upstream.Config{Servers: []string{addr}, MaxConnsPerServer: 4}, nil)
	srv := startH2(t, engine.Options{Upstream: &engine.UpstreamOptions{Pool: pool}, AccessLog: alog})
	c := h2Client(t)
	base := "https://" + srv.TLSAddr()
	if got := doRequest(t, c, "GET", base+"/old", "a", ""); got.Status != 301 {
		t.Fatalf("redirect: %+v", got)
	}
	readLines(t, logFile, 1) // in order
	if got := doRequest(t, c, "GET", base+"/elsewhere", "a", ""); got.Status != 201 {
		t.Fatalf("forward: %+v", got)
	}
	lines := readLines(t, logFile, 2)
	if len(lines) != 2 {
		t.Fatalf("%d lines logged, want 2: %q", len(lines), lines)
	}
	if !strings.Contains(lines[0], `"GET /old HTTP/2.0" 301 `) || !strings.Contains(lines[0], "https://example.com/new") {
		t.Errorf("redirect logged as %q", lines[0])
	}
	if !strings.Contains(lines[1], `"GET /elsewhere HTTP/2.0" 201 `) {
		t.Errorf("forward logged as %q", lines[1])
	}
}
