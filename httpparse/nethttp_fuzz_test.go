package httpparse

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzParseVsNetHTTP is a differential test against net/http's server-side
// parser: for a head that both Parse and http.ReadRequest accept, the
// method, version, target, path, query, host, Content-Length, chunked
// framing and keep-alive decision must agree. Only disagreement on a head
// both accept counts: Parse is stricter by design (doc.go), so a head
// only one side accepts says nothing. The head is also fed to ParseResume
// in pieces, which must read it as Parse does. testdata/fuzz/FuzzParseVsNetHTTP
// holds seeds that plain go test replays too.
//
// Known divergences, each pinned by TestNetHTTPDivergences. Parse rejects
// and net/http accepts, on purpose:
//   - a bare LF as a line end, and obsolete line folding;
//   - Content-Length together with Transfer-Encoding (net/http drops
//     Content-Length), and Transfer-Encoding on HTTP/1.0 (net/http ignores
//     it);
//   - header values with invalid UTF-8, which ReadRequest leaves to the
//     server's own checks;
//   - an HTTP/1.1 head without Host, or a Host that is not host[:port]
//     (an empty one included); ReadRequest leaves Host to the server too;
//   - "*" with a method other than OPTIONS, authority-form, schemes other
//     than http and https, absolute-form with userinfo, an empty port or
//     an IPv6 zone;
//   - a target with '"', '<', '>', '\', '#' or bytes >= 0x80, a method
//     over MaxMethod bytes, and a version other than 1.0 and 1.1
//     (HTTP/2.0 preface included).
//
// net/http rejects and Parse accepts: empty lines before the request line
// (RFC 9112 section 2.2 says to skip them), a path with a malformed
// percent-escape (we do not decode; net/http takes one in the query), a
// repeated Content-Length spelled differently ("7" and "07": same number),
// and an absolute-form host with a percent-escaped ASCII byte.
//
// Both accept, but the fields differ in form and are normalised below:
//   - Path: ours is as sent, net/http's URL.Path is percent-decoded, so
//     ours is decoded before comparing. An absolute-form target without a
//     path has Path "/" here and "" there (RFC 9110 section 4.2.3).
//   - Host from an absolute-form target: net/http percent-decodes it, ours
//     is as sent; it is decoded likewise.
//   - ContentLength: without Content-Length or chunked coding net/http says
//     0 for a request, we say -1; for chunked it says -1 too.
func FuzzParseVsNetHTTP(f *testing.F) {
	for _, group := range [][]parseCase{validCases, errorCases} {
		for _, tc := range group {
			f.Add([]byte(tc.in))
		}
	}
	f.Add([]byte(simpleHead))
	f.Add([]byte(browserHead))
	f.Add([]byte(pipelined))

	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4096 {
			return
		}
		var r Request
		n, err := Parse(in, &r, nil)
		if err != nil || n == 0 {
			return
		}
		// The head sent in pieces, as a slow client sends it, must be
		// read the same by ParseResume: compare that reading too.
		var rr Request
		if rn, rerr := parseInPieces(in, &rr); rn != n || rerr != nil {
			t.Fatalf("ParseResume in pieces of %q = %d, %v; Parse = %d", in, rn, rerr, n)
		}
		req, herr := http.ReadRequest(bufio.NewReader(bytes.NewReader(in[:n])))
		if herr != nil {
			return // net/http is stricter here; see TestNetHTTPDivergences
		}
		if d := diffNetHTTP(&r, req); d != "" {
			t.Fatalf("Parse and net/http disagree on %q: %s", in[:n], d)
		}
		if d := diffNetHTTP(&rr, req); d != "" {
			t.Fatalf("ParseResume and net/http disagree on %q: %s", in[:n], d)
		}
	})
}

// parseInPieces feeds in to ParseResume a few bytes at a time (sizes
// cycling through 1, 2 and 3) until it answers, each time from a fresh
// copy, and returns that answer.
func parseInPieces(in []byte, r *Request) (int, error) {
	var pr Progress
	for k, i := 0, 0; k < len(in); i++ {
		k = min(len(in), k+1+i%3)
		n, err := ParseResume(bytes.Clone(in[:k]), r, nil, &pr)
		if n > 0 || err != nil {
			return n, err
		}
	}
	return 0, nil
}

// diffNetHTTP describes the first field on which r and req disagree, or
// returns "".
func diffNetHTTP(r *Request, req *http.Request) string {
	switch {
	case req.Method != string(r.Method):
		return "method " + req.Method + " vs " + string(r.Method)
	case req.ProtoMajor != r.Major || req.ProtoMinor != r.Minor:
		return "version " + req.Proto
	case req.RequestURI != string(r.Target):
		return "request uri " + req.RequestURI + " vs " + string(r.Target)
	}

	path, err := url.PathUnescape(string(r.Path))
	if err != nil {
		return "path " + string(r.Path) + " does not decode, net/http took it"
	}
	wantPath := req.URL.Path
	if req.URL.Host != "" && wantPath == "" {
		wantPath = "/"
	}
	if path != wantPath {
		return "path " + wantPath + " vs " + path
	}
	if req.URL.RawQuery != string(r.Query) {
		return "query " + req.URL.RawQuery + " vs " + string(r.Query)
	}
	if hasQuery := req.URL.RawQuery != "" || req.URL.ForceQuery; hasQuery != (r.Query != nil) {
		return "query presence"
	}

	host := string(r.Host)
	if req.URL.Host != "" {
		if host, err = url.PathUnescape(host); err != nil {
			return "host " + string(r.Host) + " does not decode, net/http took it"
		}
	}
	if req.Host != host {
		return "host " + req.Host + " vs " + host
	}

	chunked := len(req.TransferEncoding) == 1 && req.TransferEncoding[0] == "chunked"
	wantCL := r.ContentLength
	if wantCL < 0 && !r.Chunked {
		wantCL = 0
	}
	if r.Chunked {
		wantCL = -1
	}
	switch {
	case chunked != r.Chunked:
		return "chunked framing"
	case req.ContentLength != wantCL:
		return "content-length"
	case req.Close == r.KeepAlive:
		return "keep-alive"
	}
	return ""
}

// TestNetHTTPDivergences pins the heads on which Parse and net/http differ
// on purpose, so a change on either side shows up here rather than as a
// silent shift in FuzzParseVsNetHTTP's coverage. ours is the error Parse
// gives (nil: accepted); netOK whether http.ReadRequest accepts.
func TestNetHTTPDivergences(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		ours  *Error
		netOK bool
	}{
		// Parse is stricter.
		{"bare lf", "GET / HTTP/1.1\nHost: h\n\n", ErrBareLF, true},
		{"obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", ErrBadHeader, true},
		{"content-length and chunked", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", ErrSmuggling, true},
		{"chunked in http/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", ErrSmuggling, true},
		{"latin-1 value", "GET / HTTP/1.1\r\nHost: h\r\nX: caf\xe9\r\n\r\n", ErrBadHeader, true},
		{"no host in http/1.1", "GET / HTTP/1.1\r\n\r\n", ErrMissingHost, true},
		{"bad host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", ErrBadHost, true},
		{"empty host in http/1.0", "GET / HTTP/1.0\r\nHost:\r\n\r\n", ErrBadHost, true},
		{"asterisk with get", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", ErrBadRequestLine, true},
		{"authority-form", "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n", ErrBadRequestLine, true},
		{"ftp scheme", "GET ftp://h/x HTTP/1.1\r\nHost: h\r\n\r\n", ErrBadRequestLine, true},
		{"userinfo", "GET http://u@h/ HTTP/1.1\r\nHost: h\r\n\r\n", ErrBadHost, true},
		{"ipv6 zone in absolute-form", "GET http://[fe80::1%25eth0]/ HTTP/1.1\r\nHost: h\r\n\r\n", ErrBadHost, true},
		{"empty port in absolute-form", "GET http://h:/ HTTP/1.1\r\nHost: h\r\n\r\n", ErrBadHost, true},
		{"quote in target", "GET /a\"b HTTP/1.1\r\nHost: h\r\n\r\n", ErrBadRequestLine, true},
		{"http/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", ErrVersionNotSupported, true},
		{"fragment", "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n", ErrBadRequestLine, true},
		{"method over MaxMethod", strings.Repeat("M", MaxMethod+1) + " / HTTP/1.1\r\nHost: h\r\n\r\n", ErrMethodTooLong, true},

		// net/http is stricter.
		{"empty line first", "\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", nil, false},
		{"bad percent escape", "GET /%zz HTTP/1.1\r\nHost: h\r\n\r\n", nil, false},
		{"repeated content-length spelled differently", "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\nContent-Length: 07\r\n\r\n", nil, false},
		{"ascii escape in absolute-form host", "GET http://a%41/ HTTP/1.1\r\nHost: h\r\n\r\n", nil, false},

		// Both accept; diffNetHTTP normalises the form.
		{"escaped path", "GET /a%2Fb HTTP/1.1\r\nHost: h\r\n\r\n", nil, true},
		{"absolute-form without path", "GET http://h?x HTTP/1.1\r\nHost: h\r\n\r\n", nil, true},
		{"utf-8 escape in absolute-form host", "GET http://%C3%A9/ HTTP/1.1\r\nHost: h\r\n\r\n", nil, true},
		{"chunked any case", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r Request
			n, err := Parse([]byte(tc.in), &r, nil)
			var want error
			if tc.ours != nil {
				want = tc.ours
			}
			if err != want || (err == nil && n != len(tc.in)) {
				t.Fatalf("Parse = %d, %v; want whole head, %v", n, err, tc.ours)
			}
			req, herr := http.ReadRequest(bufio.NewReader(bytes.NewReader([]byte(tc.in))))
			if (herr == nil) != tc.netOK {
				t.Fatalf("http.ReadRequest error %v, want ok %v", herr, tc.netOK)
			}
			if err == nil && herr == nil {
				if d := diffNetHTTP(&r, req); d != "" {
					t.Errorf("disagree: %s", d)
				}
			}
		})
	}
}

// TestDiffNetHTTP checks that the oracle is not vacuous: each field it
// compares, changed on our side, is reported.
func TestDiffNetHTTP(t *testing.T) {
	const in = "POST http://h/a%41?q HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n"
	for _, tc := range []struct {
		field  string
		change func(*Request)
	}{
		{"", func(*Request) {}},
		{"method", func(r *Request) { r.Method = []byte("GET") }},
		{"version", func(r *Request) { r.Minor = 0 }},
		{"request uri", func(r *Request) { r.Target = []byte("/") }},
		{"path", func(r *Request) { r.Path = []byte("/a") }},
		{"query", func(r *Request) { r.Query = []byte("r") }},
		{"query", func(r *Request) { r.Query = nil }},
		{"host", func(r *Request) { r.Host = []byte("x") }},
		{"content-length", func(r *Request) { r.ContentLength = 4 }},
		{"chunked framing", func(r *Request) { r.Chunked = true }},
		{"keep-alive", func(r *Request) { r.KeepAlive = false }},
	} {
		var r Request
		if _, err := Parse([]byte(in), &r, nil); err != nil {
			t.Fatal(err)
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader([]byte(in))))
		if err != nil {
			t.Fatal(err)
		}
		tc.change(&r)
		if d := diffNetHTTP(&r, req); !strings.HasPrefix(d, tc.field) || (tc.field == "") != (d == "") {
			t.Errorf("%s changed: diff %q", tc.field, d)
		}
	}
}
