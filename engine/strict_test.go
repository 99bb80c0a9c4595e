package engine_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redirectd/redirectd/engine"
	"github.com/redirectd/redirectd/internal/testutil"
)

// strictCase is one raw request and the answer the traffic port must give.
type strictCase struct {
	name   string
	raw    string
	status int
	// open: the connection must stay open (checked with a second request).
	open bool
}

// followUp is sent after an answer to check the connection still serves.
const followUp = "GET /old HTTP/1.1\r\nHost: a\r\n\r\n"

// runStrict sends tc.raw, reads one answer and checks its status, its
// framing, and whether the connection stayed open as tc says.
// The connection goes over tr.
func (tr transport) runStrict(t *testing.T, srv *engine.Server, tc strictCase) {
	t.Helper()
	c := tr.dial(t, srv)
	if _, err := io.WriteString(c, tc.raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	method := "GET"
	if strings.HasPrefix(tc.raw, "HEAD ") {
		method = "HEAD"
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	if resp.StatusCode != tc.status {
		t.Fatalf("status %d (%q), want %d", resp.StatusCode, body, tc.status)
	}
	if resp.ContentLength < 0 {
		t.Errorf("answer without Content-Length")
	}
	if !tc.open {
		if !resp.Close {
			t.Errorf("answer closes the connection but does not say Connection: close")
		}
		if resp.StatusCode >= 400 && len(body) == 0 && method != "HEAD" {
			t.Errorf("error answer without a body")
		}
		c.SetReadDeadline(time.Now().Add(testutil.Patience))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("connection not closed after an answer with Connection: close: %v", err)
		}
		return
	}
	if resp.Close {
		t.Fatalf("connection closes, want it open")
	}
	io.WriteString(c, followUp)
	if a := readAnswer(t, br, "GET"); a.Status != 301 {
		t.Fatalf("follow-up request: %+v", a)
	}
}

func TestStrictRequestLine(t *testing.T) {
	t.Parallel()
	testStrictRequestLine(t, plainTCP)
}

func testStrictRequestLine(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{MaxPathBytes: 100})
	path100 := "/" + strings.Repeat("a", 99)
	tests := []strictCase{
		{"HTTP/1.1", "GET /old HTTP/1.1\r\nHost: a\r\n\r\n", 301, true},
		{"HTTP/1.0 keep-alive", "GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 301, true},
		{"HTTP/1.0 without Host", "GET /old HTTP/1.0\r\n\r\n", 301, false},
		{"HTTP/1.2", "GET /old HTTP/1.2\r\nHost: a\r\n\r\n", 505, false},
		{"HTTP/2.0", "GET /old HTTP/2.0\r\nHost: a\r\n\r\n", 505, false},
		{"HTTP/0.9 version", "GET /old HTTP/0.9\r\nHost: a\r\n\r\n", 505, false},
		{"version without minor", "GET /old HTTP/1\r\nHost: a\r\n\r\n", 400, false},
		{"version two digits", "GET /old HTTP/11.1\r\nHost: a\r\n\r\n", 400, false},
		{"version lower case", "GET /old http/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"no version", "GET /old\r\nHost: a\r\n\r\n", 400, false},
		{"target at the limit", "GET " + path100 + " HTTP/1.1\r\nHost: a\r\n\r\n", 404, true},
		{"target over the limit", "GET " + path100 + "b HTTP/1.1\r\nHost: a\r\n\r\n", 414, false},
		{"target far over the limit, unfinished", "GET " + strings.Repeat("/a", 2000), 414, false},
		{"relative target", "GET old HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"asterisk with GET", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"OPTIONS asterisk", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", 404, true},
		{"absolute form", "GET http://shop.example.com/only-here HTTP/1.1\r\nHost: x\r\n\r\n", 307, true},
		{"absolute form https", "GET https://shop.example.com/only-here?a=1 HTTP/1.1\r\nHost: x\r\n\r\n", 307, true},
		{"authority form", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 400, false},
		{"raw backslash", "GET /a\\b HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"double quote", "GET /a\"b HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"less than", "GET /a<b HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"greater than", "GET /a>b HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"DEL", "GET /a\x7fb HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"control character", "GET /a\x01b HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"tab in target", "GET /a\tb HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"non-ASCII byte", "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"browser characters in query", "GET /old?a=[1]&b={2}&c=|^`x HTTP/1.1\r\nHost: a\r\n\r\n", 301, true},
		{"two spaces before target", "GET  /old HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"two spaces before version", "GET /old  HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"space after version", "GET /old HTTP/1.1 \r\nHost: a\r\n\r\n", 400, false},
		{"tab as separator", "GET\t/old HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"leading space", " GET /old HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"method not a token", "G@T /old HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
		{"bare LF after request line", "GET /old HTTP/1.1\nHost: a\r\n\r\n", 400, false},
		{"bare LF everywhere", "GET /old HTTP/1.1\nHost: a\n\n", 400, false},
		{"bare CR in request line", "GET /old\rx HTTP/1.1\r\nHost: a\r\n\r\n", 400, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tr.runStrict(t, srv, tc) })
	}
}

func TestStrictHeaders(t *testing.T) {
	t.Parallel()
	testStrictHeaders(t, plainTCP)
}

func testStrictHeaders(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	host255 := strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63)
	many := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("X-N: " + strings.Repeat("v", i%7) + "\r\n")
		}
		return b.String()
	}
	tests := []strictCase{
		{"100 header lines", "GET /old HTTP/1.1\r\nHost: a\r\n" + many(99) + "\r\n", 301, true},
		{"101 header lines", "GET /old HTTP/1.1\r\nHost: a\r\n" + many(100) + "\r\n", 431, false},
		{"headers over 64 KiB", "GET /old HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("b", 65<<10) + "\r\n\r\n", 431, false},
		{"headers over 64 KiB, unfinished", "GET /old HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("b", 65<<10), 431, false},
		{"header name with space", "GET /old HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n", 400, false},
		{"space before colon", "GET /old HTTP/1.1\r\nHost : a\r\n\r\n", 400, false},
		{"tab before colon", "GET /old HTTP/1.1\r\nHost: a\r\nX-A\t: b\r\n\r\n", 400, false},
		{"empty header name", "GET /old HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", 400, false},
		{"header without colon", "GET /old HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", 400, false},
		{"control character in value", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: a\x01b\r\n\r\n", 400, false},
		{"DEL in value", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: a\x7fb\r\n\r\n", 400, false},
		{"NUL in value", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: a\x00b\r\n\r\n", 400, false},
		{"tab in value", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: a\tb\r\n\r\n", 301, true},
		{"UTF-8 in value", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: caf\xc3\xa9\r\n\r\n", 301, true},
		{"invalid UTF-8 in value", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: caf\xe9\r\n\r\n", 400, false},
		{"folded header", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: a\r\n b\r\n\r\n", 400, false},
		{"folded header with tab", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: a\r\n\tb\r\n\r\n", 400, false},
		{"bare CR in value", "GET /old HTTP/1.1\r\nHost: a\r\nX-A: a\rb\r\n\r\n", 400, false},
		{"bare LF between headers", "GET /old HTTP/1.1\r\nHost: a\nX-A: b\r\n\r\n", 400, false},
		{"second Host", "GET /old HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400, false},
		{"HTTP/1.1 without Host", "GET /old HTTP/1.1\r\n\r\n", 400, false},
		{"empty Host", "GET /old HTTP/1.1\r\nHost: \r\n\r\n", 400, false},
		{"Host of 255 bytes", "GET /old HTTP/1.1\r\nHost: " + host255[:255] + "\r\n\r\n", 301, true},
		{"Host of 256 bytes", "GET /old HTTP/1.1\r\nHost: " + host255[:255] + "e\r\n\r\n", 400, false},
		{"Host with space", "GET /old HTTP/1.1\r\nHost: a b\r\n\r\n", 400, false},
		{"Host with slash", "GET /old HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, false},
		{"Host with userinfo", "GET /old HTTP/1.1\r\nHost: u@a\r\n\r\n", 400, false},
		{"Host IPv4 and port", "GET /old HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", 301, true},
		{"Host IPv6", "GET /old HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", 301, true},
		{"Host IPv6 unbracketed", "GET /old HTTP/1.1\r\nHost: ::1\r\n\r\n", 400, false},
		{"Host IPv6 unclosed", "GET /old HTTP/1.1\r\nHost: [::1\r\n\r\n", 400, false},
		{"Host port 65535", "GET /old HTTP/1.1\r\nHost: a:65535\r\n\r\n", 301, true},
		{"Host port 65536", "GET /old HTTP/1.1\r\nHost: a:65536\r\n\r\n", 400, false},
		{"Host port not digits", "GET /old HTTP/1.1\r\nHost: a:8o\r\n\r\n", 400, false},
		{"Host empty port", "GET /old HTTP/1.1\r\nHost: a:\r\n\r\n", 400, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tr.runStrict(t, srv, tc) })
	}
}

func TestStrictFraming(t *testing.T) {
	t.Parallel()
	testStrictFraming(t, plainTCP)
}

func testStrictFraming(t *testing.T, tr transport) {
	srv := tr.start(t, engine.Options{})
	tests := []strictCase{
		{"Content-Length and Transfer-Encoding", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, false},
		{"Transfer-Encoding and Content-Length", "POST /old HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", 400, false},
		{"two Content-Length values", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400, false},
		{"Content-Length list", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello", 400, false},
		{"Content-Length with sign", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\nhello", 400, false},
		{"Content-Length not digits", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 5a\r\n\r\nhello", 400, false},
		{"Content-Length empty", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n", 400, false},
		{"Content-Length overflows", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", 400, false},
		{"same Content-Length twice", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", 301, true},
		{"Transfer-Encoding gzip", "POST /old HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 400, false},
		{"Transfer-Encoding gzip, chunked", "POST /old HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 400, false},
		{"Transfer-Encoding chunked, chunked", "POST /old HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 400, false},
		{"two Transfer-Encoding lines", "POST /old HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, false},
		{"Transfer-Encoding with junk", "POST /old HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 400, false},
		{"Transfer-Encoding in HTTP/1.0", "POST /old HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, false},
		{"chunked body is answered and closed", "POST /old HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 301, false},
		{"body received whole stays open", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello", 301, true},
		{"body still coming closes", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\nhello", 301, false},
		{"Expect 100-continue gets the final answer", "POST /old HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n", 301, false},
		{"HEAD", "HEAD /nothing HTTP/1.1\r\nHost: a\r\n\r\n", 404, true},
		{"Connection: close", "GET /old HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 301, false},
		{"Connection: keep-alive, close", "GET /old HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, close\r\n\r\n", 301, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tr.runStrict(t, srv, tc) })
	}
}
