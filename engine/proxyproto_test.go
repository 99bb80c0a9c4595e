package engine_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/engine/accesslog"
	"github.com/redirectd/redirectd/engine/upstream"
	"github.com/redirectd/redirectd/internal/testutil"
)

// These tests drive the real server over loopback with raw bytes: a PROXY
// header, then HTTP. Every connection comes from 127.0.0.1, so
// 127.0.0.0/8 plays the trusted load balancer, and a list without it
// (10.0.0.0/8) makes the same peer untrusted.

var (
	trustLoopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	trustTen      = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	trustBoth     = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}
)

// ppServer runs a server with opts, a real upstream that echoes what it
// got (echoUpstream) for the requests no rule matches, and a JSON access
// log, whose path it returns.
func ppServer(t *testing.T, opts engine.Options) (*engine.Server, string) {
	t.Helper()
	pool := upstream.New(upstream.Config{Servers: []string{startUpstream(t, echoUpstream("a"))},
		ConnectTimeout: time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second, MaxConnsPerServer: 64}, nil)
	t.Cleanup(pool.Close)
	opts.Upstream = &engine.UpstreamOptions{Pool: pool}
	logFile := filepath.Join(t.TempDir(), "access.log")
	alog, err := accesslog.Open(logFile, accesslog.JSON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { alog.Close() }) // after the server stops: cleanups run last first
	opts.AccessLog = alog
	return startServerWith(t, opts), logFile
}

// ppV2 builds a PROXY protocol v2 header.
func ppV2(cmd, fam byte, body []byte) []byte {
	b := append([]byte("\r\n\r\n\x00\r\nQUIT\n"), cmd, fam)
	b = binary.BigEndian.AppendUint16(b, uint16(len(body)))
	return append(b, body...)
}

// ppV2From is a v2 PROXY header from src:40000 to dst:80, TCP over IPv4
// or IPv6 by src's family, with a TLV that must be skipped.
func ppV2From(src, dst string) []byte {
	s, d := netip.MustParseAddr(src), netip.MustParseAddr(dst)
	fam, body := byte(0x11), []byte{}
	if s.Is4() {
		a, b := s.As4(), d.As4()
		body = append(append(body, a[:]...), b[:]...)
	} else {
		fam = 0x21
		a, b := s.As16(), d.As16()
		body = append(append(body, a[:]...), b[:]...)
	}
	body = binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(body, 40000), 80)
	body = append(body, 0x04, 0x00, 0x02, 'o', 'k') // PP2_TYPE_NOOP
	return ppV2(0x21, fam, body)
}

// upstreamSaw returns the echo upstream's line for header name.
func upstreamSaw(body, name string) string {
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, name+": "); ok {
			return v
		}
	}
	return ""
}

type logLine struct{ Client, Target string }

// logLines waits for the access log to hold n lines (loops hand theirs
// over every tick) and returns them.
func logLines(t *testing.T, file string, n int) []logLine {
	t.Helper()
	var data []byte
	var lines []logLine
	testutil.Eventually(testutil.Patience, func() bool {
		data, _ = os.ReadFile(file)
		lines = nil
		for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var ll logLine
			if len(l) > 0 && json.Unmarshal(l, &ll) == nil {
				lines = append(lines, ll)
			}
		}
		return len(lines) >= n
	})
	if len(lines) != n {
		t.Fatalf("access log has %d lines, want %d:\n%s", len(lines), n, data)
	}
	return lines
}

// metric reads one sample of the server's /metrics text, 0 if absent.
func metric(srv *engine.Server, name string) float64 {
	v, _ := testutil.Metric(metricsOf(srv), name)
	return v
}

// waitMetric waits for a metric to reach want; the 30 s are only there
// to end a test that would hang.
func waitMetric(t *testing.T, srv *engine.Server, name string, want float64) {
	t.Helper()
	if !testutil.Eventually(30*time.Second, func() bool { return metric(srv, name) == want }) {
		t.Fatalf("%s = %v, want %v", name, metric(srv, name), want)
	}
}

// expectRefused checks that the server closed c without answering a byte.
func expectRefused(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(testutil.Patience))
	b, err := io.ReadAll(c)
	if len(b) > 0 || err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("want the connection closed unanswered; read %q, %v", b, err)
	}
}

// TestProxyProtocolClient sends each kind of header from a trusted peer,
// then a forwarded request and a redirect on the same connection: the
// upstream sees the header's client in X-Forwarded-For, and the access
// log records it for both.
func TestProxyProtocolClient(t *testing.T) {
	t.Parallel()
	srv, logFile := ppServer(t, engine.Options{Proxies: engine.ProxyOptions{Protocol: true, Trusted: trustLoopback}})
	cases := []struct {
		name   string
		header [][]byte // written one after another, each read before the next
		client string
	}{
		{"v1 tcp4", [][]byte{[]byte("PROXY TCP4 203.0.113.7 192.0.2.1 40000 80\r\n")}, "203.0.113.7"},
		{"v1 tcp6", [][]byte{[]byte("PROXY TCP6 2001:db8::7 2001:db8::1 40000 80\r\n")}, "2001:db8::7"},
		{"v2 tcp4", [][]byte{ppV2From("198.51.100.23", "192.0.2.1")}, "198.51.100.23"},
		{"v2 tcp6", [][]byte{ppV2From("2001:db8::23", "2001:db8::1")}, "2001:db8::23"},
		{"v2 mapped", [][]byte{ppV2From("::ffff:198.51.100.24", "::1")}, "198.51.100.24"},
		// A balancer's own health check keeps the peer's address.
		{"v2 local", [][]byte{ppV2(0x20, 0x00, nil)}, "127.0.0.1"},
		{"v1 unknown", [][]byte{[]byte("PROXY UNKNOWN\r\n")}, "127.0.0.1"},
		{"v1 in pieces", [][]byte{[]byte("PROXY TCP4 203.0."), []byte("113.8 192.0.2.1 40000 80\r")}, "203.0.113.8"},
		{"v2 in pieces", [][]byte{ppV2From("198.51.100.25", "192.0.2.1")[:14], ppV2From("198.51.100.25", "192.0.2.1")[14:30]}, "198.51.100.25"},
	}
	var want []logLine
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, srv)
			held := 0
			for _, p := range tc.header {
				c.Write(p)
				if held += len(p); len(tc.header) > 1 {
					waitHeld(t, srv, held) // the pieces are parts of a header
				}
			}
			rest := ""
			if strings.HasSuffix(tc.name, "pieces") && tc.header[0][0] == 'P' {
				rest = "\n"
			} else if strings.HasSuffix(tc.name, "pieces") {
				rest = string(ppV2From("198.51.100.25", "192.0.2.1")[30:])
			}
			target := "/miss/" + strings.ReplaceAll(tc.name, " ", "-")
			io.WriteString(c, rest+"GET "+target+" HTTP/1.1\r\nHost: site.example\r\n\r\n")
			br := bufio.NewReader(c)
			resp, body := readFull(t, br, "GET")
			if resp.StatusCode != 200 {
				t.Fatalf("forwarded: %d %s", resp.StatusCode, body)
			}
			if got := upstreamSaw(body, "X-Forwarded-For"); got != tc.client {
				t.Errorf("upstream saw X-Forwarded-For %q, want %q", got, tc.client)
			}
			io.WriteString(c, "GET /old HTTP/1.1\r\nHost: site.example\r\n\r\n")
			if a := readAnswer(t, br, "GET"); a.Status != 301 {
				t.Errorf("redirect after the header: %+v", a)
			}
			want = append(want, logLine{tc.client, target}, logLine{tc.client, "/old"})
		})
	}
	// Lines come from two event loops, each in its own order.
	byTarget := cmpopts.SortSlices(func(a, b logLine) bool { return a.Client+a.Target < b.Client+b.Target })
	if diff := cmp.Diff(want, logLines(t, logFile, len(want)), byTarget); diff != "" {
		t.Errorf("access log (-want +got):\n%s", diff)
	}
	for _, r := range []string{"untrusted", "missing", "malformed"} {
		if n := metric(srv, `redirectd_proxy_protocol_rejected_total{reason="`+r+`"}`); n != 0 {
			t.Errorf("%s rejections: %v, want 0", r, n)
		}
	}
}

// TestProxyProtocolRefused: with proxy_protocol on, a peer outside
// trusted_proxies, a connection without a header and a malformed header
// are each closed unanswered and counted by reason; and no connection
// stays counted.
func TestProxyProtocolRefused(t *testing.T) {
	t.Parallel()
	get := "GET /old HTTP/1.1\r\nHost: site.example\r\n\r\n"
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		send    string
		reason  string
	}{
		{"untrusted peer", trustTen, "PROXY TCP4 203.0.113.7 192.0.2.1 40000 80\r\n" + get, "untrusted"},
		{"untrusted peer v2", trustTen, string(ppV2From("203.0.113.7", "192.0.2.1")) + get, "untrusted"},
		{"untrusted peer plain http", trustTen, get, "untrusted"},
		{"missing", trustLoopback, get, "missing"},
		{"missing, PUT", trustLoopback, "PUT /x HTTP/1.1\r\n", "missing"},
		{"v1 leading zero port", trustLoopback, "PROXY TCP4 203.0.113.7 192.0.2.1 040000 80\r\n" + get, "malformed"},
		{"v1 bare LF", trustLoopback, "PROXY TCP4 203.0.113.7 192.0.2.1 40000 80\n" + get, "malformed"},
		{"v1 endless", trustLoopback, "PROXY UNKNOWN " + strings.Repeat("x", 200), "malformed"},
		{"v2 bad family", trustLoopback, string(ppV2(0x21, 0x13, make([]byte, 12))) + get, "malformed"},
		{"v2 oversized", trustLoopback, string(ppV2(0x21, 0x11, make([]byte, 5000))), "malformed"},
		{"v2 proxy unspec", trustLoopback, string(ppV2(0x21, 0x00, nil)) + get, "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startServerWith(t, engine.Options{Proxies: engine.ProxyOptions{Protocol: true, Trusted: tc.trusted}})
			c := dial(t, srv)
			io.WriteString(c, tc.send)
			expectRefused(t, c)
			name := `redirectd_proxy_protocol_rejected_total{reason="` + tc.reason + `"}`
			waitMetric(t, srv, name, 1)
			waitMetric(t, srv, "redirectd_connections_open", 0)
		})
	}
}

// TestProxyProtocolSlowHeader: a header that never completes is bounded
// by header_timeout, and the connection is uncounted.
func TestProxyProtocolSlowHeader(t *testing.T) {
	const header = 10 * time.Second
	srv := plainTCP.startClocked(t, engine.Options{HeaderTimeout: header, IdleTimeout: time.Hour,
		Proxies: engine.ProxyOptions{Protocol: true, Trusted: trustLoopback}})
	c := dial(t, srv.Server)
	io.WriteString(c, "PROXY TCP4 203.0.")
	start := srv.now()
	srv.waitConn(t, "the header's first bytes", func(c engine.ConnState) bool { return c.HeadStart == start })
	srv.advance(header - time.Millisecond)
	srv.wantTimedOut(t, "header", 0)
	srv.advance(time.Millisecond)
	srv.wantTimedOut(t, "header", 1)
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("want the connection closed after header_timeout: %v", err)
	}
	waitMetric(t, srv.Server, "redirectd_connections_open", 0)
}

// ppGet opens a connection through the "balancer" for client and has a
// redirect answered on it, leaving it open.
func ppGet(t *testing.T, srv *engine.Server, client string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", srv.Addr(), 2*time.Second)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(testutil.Patience))
	fmt.Fprintf(c, "PROXY TCP4 %s 192.0.2.1 40000 80\r\nGET /old HTTP/1.1\r\nHost: site.example\r\n\r\n", client)
	br := bufio.NewReader(c)
	resp, err := readResponse(br)
	if err != nil {
		return c, err
	}
	if resp != 301 {
		return c, fmt.Errorf("status %d", resp)
	}
	return c, nil
}

func readResponse(br *bufio.Reader) (int, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	var status int
	fmt.Sscanf(line, "HTTP/1.1 %d", &status)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if l == "\r\n" {
			break
		}
	}
	return status, nil
}

// TestProxyProtocolPerIP: max_connections_per_ip counts the clients the
// headers name, not the balancer: 257 clients through one balancer are
// all served at once, and a client over its own limit is refused while
// others are still served.
func TestProxyProtocolPerIP(t *testing.T) {
	srv := startServerWith(t, engine.Options{Proxies: engine.ProxyOptions{Protocol: true, Trusted: trustLoopback}})
	for i := range engine.DefaultMaxConnsPerIP + 1 {
		if _, err := ppGet(t, srv, fmt.Sprintf("198.51.%d.%d", 100+i/250, 1+i%250)); err != nil {
			t.Fatalf("client %d through the balancer: %v", i+1, err)
		}
	}
	waitMetric(t, srv, "redirectd_connections_open", engine.DefaultMaxConnsPerIP+1)

	srv = startServerWith(t, engine.Options{MaxConnsPerIP: 3, Proxies: engine.ProxyOptions{Protocol: true, Trusted: trustLoopback}})
	var held []net.Conn
	for i := range 3 {
		c, err := ppGet(t, srv, "203.0.113.7")
		if err != nil {
			t.Fatalf("connection %d of 203.0.113.7: %v", i+1, err)
		}
		held = append(held, c)
	}
	if c, err := ppGet(t, srv, "203.0.113.7"); err == nil {
		t.Fatal("a 4th connection of 203.0.113.7 was served with max_connections_per_ip = 3")
	} else {
		expectRefused(t, c)
	}
	waitMetric(t, srv, `redirectd_connections_rejected_total{reason="per_ip_limit"}`, 1)
	if _, err := ppGet(t, srv, "203.0.113.8"); err != nil {
		t.Fatalf("another client while 203.0.113.7 is at its limit: %v", err)
	}
	held[0].Close()
	waitMetric(t, srv, "redirectd_connections_open", 3)
	if _, err := ppGet(t, srv, "203.0.113.7"); err != nil {
		t.Fatalf("203.0.113.7 after closing one of its connections: %v", err)
	}
}

// TestForwardedForTrust: X-Forwarded-For decides the logged client only
// from a trusted peer, the peer being the PROXY header's client when there
// is one; the forwarded X-Forwarded-For keeps the list and appends the
// peer, as before.
func TestForwardedForTrust(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    engine.ProxyOptions
		header  string
		xff     string
		client  string // logged
		forward string // X-Forwarded-For the upstream gets
	}{
		{"trusted peer", engine.ProxyOptions{Trusted: trustLoopback}, "", "198.51.100.9, 127.0.0.5",
			"198.51.100.9", "198.51.100.9, 127.0.0.5, 127.0.0.1"},
		{"untrusted peer", engine.ProxyOptions{Trusted: trustTen}, "", "198.51.100.9, 127.0.0.5",
			"127.0.0.1", "198.51.100.9, 127.0.0.5, 127.0.0.1"},
		{"no trusted proxies", engine.ProxyOptions{}, "", "198.51.100.9",
			"127.0.0.1", "198.51.100.9, 127.0.0.1"},
		{"proxy protocol client untrusted", engine.ProxyOptions{Protocol: true, Trusted: trustLoopback},
			"PROXY TCP4 203.0.113.7 192.0.2.1 40000 80\r\n", "198.51.100.9",
			"203.0.113.7", "198.51.100.9, 203.0.113.7"},
		{"proxy protocol client trusted", engine.ProxyOptions{Protocol: true, Trusted: trustBoth},
			"PROXY TCP4 10.1.2.3 192.0.2.1 40000 80\r\n", "198.51.100.9, 10.7.7.7",
			"198.51.100.9", "198.51.100.9, 10.7.7.7, 10.1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, logFile := ppServer(t, engine.Options{Proxies: tc.opts})
			c := dial(t, srv)
			io.WriteString(c, tc.header+"GET /miss HTTP/1.1\r\nHost: site.example\r\nX-Forwarded-For: "+tc.xff+"\r\n\r\n")
			br := bufio.NewReader(c)
			_, body := readFull(t, br, "GET")
			if got := upstreamSaw(body, "X-Forwarded-For"); got != tc.forward {
				t.Errorf("upstream saw X-Forwarded-For %q, want %q", got, tc.forward)
			}
			io.WriteString(c, "GET /old HTTP/1.1\r\nHost: site.example\r\nX-Forwarded-For: "+tc.xff+"\r\n\r\n")
			readAnswer(t, br, "GET")
			want := []logLine{{tc.client, "/miss"}, {tc.client, "/old"}}
			if diff := cmp.Diff(want, logLines(t, logFile, 2)); diff != "" {
				t.Errorf("access log (-want +got):\n%s", diff)
			}
		})
	}
}

// TestForwardedProtoTrust: with https_redirect, X-Forwarded-Proto: https
// spares a request the redirect, and reaches the upstream, only from a
// trusted peer, or from loopback when trusted_proxies is empty.
func TestForwardedProtoTrust(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    engine.ProxyOptions
		header  string
		honored bool
	}{
		{"no trusted proxies, loopback", engine.ProxyOptions{}, "", true},
		{"trusted peer", engine.ProxyOptions{Trusted: trustLoopback}, "", true},
		{"untrusted peer", engine.ProxyOptions{Trusted: trustTen}, "", false},
		{"proxy protocol client untrusted", engine.ProxyOptions{Protocol: true, Trusted: trustLoopback},
			"PROXY TCP4 203.0.113.7 192.0.2.1 40000 443\r\n", false},
		{"proxy protocol client trusted", engine.ProxyOptions{Protocol: true, Trusted: trustBoth},
			"PROXY TCP4 10.1.2.3 192.0.2.1 40000 443\r\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := ppServer(t, engine.Options{HTTPSRedirect: true, Proxies: tc.opts})
			c := dial(t, srv)
			io.WriteString(c, tc.header+"GET /miss HTTP/1.1\r\nHost: site.example\r\nX-Forwarded-Proto: https\r\n\r\n")
			resp, body := readFull(t, bufio.NewReader(c), "GET")
			switch {
			case tc.honored && (resp.StatusCode != 200 || upstreamSaw(body, "X-Forwarded-Proto") != "https"):
				t.Errorf("X-Forwarded-Proto: https not believed: %d %q, upstream saw %q", resp.StatusCode, resp.Header.Get("Location"), upstreamSaw(body, "X-Forwarded-Proto"))
			case !tc.honored && (resp.StatusCode != 301 || resp.Header.Get("Location") != "https://site.example/miss"):
				t.Errorf("X-Forwarded-Proto: https believed from an untrusted peer: %d %q", resp.StatusCode, resp.Header.Get("Location"))
			}
		})
	}
}
