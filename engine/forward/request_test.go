package forward

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/httpparse"
)

func parse(t *testing.T, head string) *httpparse.Request {
	t.Helper()
	var req httpparse.Request
	if _, err := httpparse.Parse([]byte(head), &req, &httpparse.Limits{}); err != nil {
		t.Fatalf("%q: %v", head, err)
	}
	return &req
}

// lines is a Sink that keeps the fields as "Name: value".
type lines []string

func (l *lines) Add(name, value []byte) { *l = append(*l, string(name)+": "+string(value)) }

// TestRequestHeaders: the fields a request goes upstream with, for the
// Host choices, trust and the scheme.
func TestRequestHeaders(t *testing.T) {
	const head = "GET /x HTTP/1.1\r\nHost: Site.Example\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\n" +
		"Keep-Alive: timeout=5\r\nTE: trailers\r\nExpect: 100-continue\r\nContent-Length: 0\r\nX-Forwarded-For: 192.0.2.1\r\n" +
		"X-Forwarded-Proto: https\r\nX-Forwarded-Host: spoofed\r\nForwarded: for=127.0.0.1\r\nx-lower: Kept As Sent\r\n\r\n"
	client := netip.MustParseAddr("203.0.113.7")
	for _, tc := range []struct {
		name string
		r    Request
		want []string
	}{
		{"plain", Request{Client: client, ServerAddr: "10.0.0.1:80"}, []string{"Host: Site.Example", "x-lower: Kept As Sent",
			"X-Forwarded-For: 192.0.2.1, 203.0.113.7", "X-Forwarded-Proto: http", "X-Forwarded-Host: Site.Example"}},
		{"trusted https", Request{Client: client, HTTPS: true, Trusted: true, ServerAddr: "10.0.0.1:80"}, []string{"Host: Site.Example",
			"Forwarded: for=127.0.0.1", "x-lower: Kept As Sent", "X-Forwarded-For: 192.0.2.1, 203.0.113.7", "X-Forwarded-Proto: https",
			"X-Forwarded-Host: Site.Example"}},
		{"host from upstream", Request{Client: client, HostFromUpstream: true, ServerAddr: "10.0.0.1:80"}, []string{"Host: 10.0.0.1:80",
			"x-lower: Kept As Sent", "X-Forwarded-For: 192.0.2.1, 203.0.113.7", "X-Forwarded-Proto: http", "X-Forwarded-Host: Site.Example"}},
		{"host header", Request{Client: client, HostHeader: []byte("app.internal"), ServerAddr: "10.0.0.1:80"}, []string{"Host: app.internal",
			"x-lower: Kept As Sent", "X-Forwarded-For: 192.0.2.1, 203.0.113.7", "X-Forwarded-Proto: http", "X-Forwarded-Host: Site.Example"}},
	} {
		var got lines
		RequestHeaders(&got, parse(t, head), &tc.r)
		if d := cmp.Diff(tc.want, []string(got)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestTarget(t *testing.T) {
	for head, want := range map[string]string{
		"GET //internal.example/x:// HTTP/1.1\r\nHost: a\r\n\r\n": "//internal.example/x://",
		"GET http://a.example/p?q=1 HTTP/1.1\r\nHost: a\r\n\r\n":  "/p?q=1",
		"GET http://a.example/p HTTP/1.1\r\nHost: a\r\n\r\n":      "/p",
		"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n":                   "*",
	} {
		if got := string(Target(parse(t, head))); got != want {
			t.Errorf("%q: target %q, want %q", strings.Fields(head)[1], got, want)
		}
	}
}

func TestIsWebSocket(t *testing.T) {
	for head, want := range map[string]bool{
		"GET /c HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n\r\n": true,
		"GET /c HTTP/1.0\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n":             false,
		"POST /c HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n":            false,
		"GET /c HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n":                   false,
		"GET /c HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n":                                    false,
	} {
		if got := IsWebSocket(parse(t, head)); got != want {
			t.Errorf("%q: %v, want %v", head, got, want)
		}
	}
}
