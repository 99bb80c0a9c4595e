package httpparse

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// result is a comparable summary of one Parse call.
type result struct {
	N        int
	Status   int    // 0 without error
	Err      string // error text, "" without error
	Method   string
	Target   string
	Path     string
	Query    string
	HasQuery bool // Query != nil
	Host     string
	Version  string
	CL       int64
	Chunked  bool
	Keep     bool
	Continue bool
}

// whole in a want stands for len(in): the whole input is one head.
const whole = -1

// incomplete is what Parse gives for a valid prefix of a head.
var incomplete = result{}

func parse(in string, lim *Limits) result {
	var r Request
	return summarize(Parse([]byte(in), &r, lim))(&r)
}

func summarize(n int, err error) func(*Request) result {
	return func(r *Request) result {
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				return result{Err: "not an *Error: " + err.Error()}
			}
			return result{N: n, Status: e.Status, Err: e.Error()}
		}
		if n == 0 {
			return result{}
		}
		return result{
			N: n, Method: string(r.Method), Target: string(r.Target),
			Path: string(r.Path), Query: string(r.Query), HasQuery: r.Query != nil,
			Host:    string(r.Host),
			Version: string(rune('0'+r.Major)) + "." + string(rune('0'+r.Minor)),
			CL:      r.ContentLength, Chunked: r.Chunked, Keep: r.KeepAlive,
			Continue: r.ExpectContinue,
		}
	}
}

// fail is the summary of a Parse that returned e.
func fail(e *Error) result { return result{Status: e.Status, Err: e.Error()} }

// get is the summary of a plain complete GET; tests change what differs.
func get(path, host string) result {
	return result{N: whole, Method: "GET", Target: path, Path: path, Host: host,
		Version: "1.1", CL: -1, Keep: true}
}

func with(r result, f func(*result)) result { f(&r); return r }

type parseCase struct {
	name string
	in   string
	lim  *Limits
	want result
}

var validCases = []parseCase{
	{"get", "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
		nil, get("/", "example.com")},
	{"head with query and port", "HEAD /a/b?x=1&y=2 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n",
		nil, result{N: whole, Method: "HEAD", Target: "/a/b?x=1&y=2", Path: "/a/b", Query: "x=1&y=2",
			HasQuery: true, Host: "example.com:8080", Version: "1.1", CL: -1, Keep: true}},
	{"empty query", "GET /a? HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, with(get("/a?", "h"), func(r *result) { r.Path, r.HasQuery = "/a", true })},
	{"post with body after head", "POST /submit HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
		nil, with(get("/submit", "h"), func(r *result) {
			r.N, r.Method, r.CL = len("POST /submit HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"), "POST", 5
		})},
	{"post chunked", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.Method, r.Chunked = "POST", true })},
	{"content-length zero", "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.CL = 0 })},
	{"content-length max int64", "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775807\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.CL = 1<<63 - 1 })},
	{"repeated identical content-length", "GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\ncontent-length: 007\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.CL = 7 })},
	{"expect continue", "PUT /x HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n",
		nil, with(get("/x", "h"), func(r *result) { r.Method, r.CL, r.Continue = "PUT", 1, true })},
	{"http/1.0 ignores expect", "PUT /x HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n",
		nil, result{N: whole, Method: "PUT", Target: "/x", Path: "/x", Version: "1.0", CL: 1}},
	{"http/1.0 closes by default", "GET / HTTP/1.0\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "/", Path: "/", Version: "1.0", CL: -1}},
	{"http/1.0 keep-alive", "GET / HTTP/1.0\r\nHost: h\r\nConnection: Keep-Alive\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "/", Path: "/", Host: "h", Version: "1.0", CL: -1, Keep: true}},
	{"http/1.0 keep-alive in a list", "GET / HTTP/1.0\r\nConnection: foo,  keep-alive ,bar\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "/", Path: "/", Version: "1.0", CL: -1, Keep: true}},
	{"http/1.0 close wins", "GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "/", Path: "/", Version: "1.0", CL: -1}},
	{"http/1.0 keep-alive is a whole token", "GET / HTTP/1.0\r\nConnection: keep-alivex\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "/", Path: "/", Version: "1.0", CL: -1}},
	{"http/1.1 close", "GET / HTTP/1.1\r\nHost: h\r\nConnection: CLOSE\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.Keep = false })},
	{"http/1.1 close in a list", "GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive,\tclose\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.Keep = false })},
	{"http/1.1 close on a second line", "GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade\r\nConnection: close\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.Keep = false })},
	{"http/1.1 closed is not close", "GET / HTTP/1.1\r\nHost: h\r\nConnection: closed\r\n\r\n",
		nil, get("/", "h")},
	{"absolute-form wins over host", "GET http://Example.com:8080/p?q HTTP/1.1\r\nHost: other\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "http://Example.com:8080/p?q", Path: "/p", Query: "q",
			HasQuery: true, Host: "Example.com:8080", Version: "1.1", CL: -1, Keep: true}},
	{"absolute-form https without path", "GET HTTPS://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "HTTPS://example.com", Path: "/",
			Host: "example.com", Version: "1.1", CL: -1, Keep: true}},
	{"absolute-form query without path", "GET http://h?x HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "http://h?x", Path: "/", Query: "x", HasQuery: true,
			Host: "h", Version: "1.1", CL: -1, Keep: true}},
	{"absolute-form http/1.0 without host", "GET http://h/x HTTP/1.0\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "http://h/x", Path: "/x", Host: "h", Version: "1.0", CL: -1}},
	{"options asterisk", "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, with(get("*", "h"), func(r *result) { r.Method = "OPTIONS" })},
	{"extension method", "PURGE /x HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, with(get("/x", "h"), func(r *result) { r.Method = "PURGE" })},
	{"double slash path", "GET //evil.example/x HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, get("//evil.example/x", "h")},
	{"browser bytes in target", "GET /a[1]{2}|^`x HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, get("/a[1]{2}|^`x", "h")},
	{"method of MaxMethod bytes", "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.!~* /x HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, with(get("/x", "h"), func(r *result) { r.Method = "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.!~*" })},
	{"host ipv4", "GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n", nil, get("/", "127.0.0.1:80")},
	{"host ipv6", "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", nil, get("/", "[::1]:8080")},
	{"host ipv6 with ipv4 tail", "GET / HTTP/1.1\r\nHost: [::ffff:192.0.2.1]\r\n\r\n",
		nil, get("/", "[::ffff:192.0.2.1]")},
	{"host pct-encoded and sub-delims", "GET / HTTP/1.1\r\nHost: a%2Db!$&'()*+,;=_~\r\n\r\n",
		nil, get("/", "a%2Db!$&'()*+,;=_~")},
	{"host trimmed", "GET / HTTP/1.1\r\nHost: \t h \t\r\n\r\n", nil, get("/", "h")},
	{"lower-case host name", "GET / HTTP/1.1\r\nhOsT:h\r\n\r\n", nil, get("/", "h")},
	{"leading empty lines", "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", nil, get("/", "h")},
	{"tab and utf-8 in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\tb\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\r\n\r\n", nil, get("/", "h")},
	{"utf-8 after the word-at-a-time scan", "GET / HTTP/1.1\r\nHost: h\r\nX: 0123456789abcdef\xc3\xa9\r\n\r\n", nil, get("/", "h")},
	{"utf-8 then trailing space", "GET / HTTP/1.1\r\nHost: h\r\nX: \xc3\xa9 \t\r\n\r\n", nil, get("/", "h")},
	{"absolute-form https with path", "GET https://example.com/a?b HTTP/1.1\r\nHost: example.com\r\n\r\n",
		nil, result{N: whole, Method: "GET", Target: "https://example.com/a?b", Path: "/a", Query: "b", HasQuery: true,
			Host: "example.com", Version: "1.1", CL: -1, Keep: true}},
	{"browser bytes in query", "GET /s?q=[a]{b}|c^d`e HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, with(get("/s?q=[a]{b}|c^d`e", "h"), func(r *result) { r.Path, r.Query, r.HasQuery = "/s", "q=[a]{b}|c^d`e", true })},
	{"host of 255 bytes", "GET / HTTP/1.1\r\nHost: " + strings.Repeat("a", 255) + ":65535\r\n\r\n",
		nil, get("/", strings.Repeat("a", 255)+":65535")},
	{"host ipv4 without port", "GET / HTTP/1.1\r\nHost: 192.0.2.1\r\n\r\n", nil, get("/", "192.0.2.1")},
	{"transfer-encoding any case", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: CHUNKED\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.Method, r.Chunked = "POST", true })},
	{"transfer-encoding with ows", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \t chunked \t\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.Method, r.Chunked = "POST", true })},
	{"transfer-encoding lower-case name", "POST / HTTP/1.1\r\nHost: h\r\ntransfer-encoding:chunked\r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.Method, r.Chunked = "POST", true })},
	{"content-length with ows", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \t42 \r\n\r\n",
		nil, with(get("/", "h"), func(r *result) { r.Method, r.CL = "POST", 42 })},
	{"empty value", "GET / HTTP/1.1\r\nHost: h\r\nX-Empty:\r\n\r\n", nil, get("/", "h")},
	{"expect other value ignored", "GET / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\n\r\n", nil, get("/", "h")},
}

var errorCases = []parseCase{
	// Line endings.
	{"bare lf after request line", "GET / HTTP/1.1\nHost: h\r\n\r\n", nil, fail(ErrBareLF)},
	{"bare lf after header", "GET / HTTP/1.1\r\nHost: h\n\r\n", nil, fail(ErrBareLF)},
	{"bare lf ending head", "GET / HTTP/1.1\r\nHost: h\r\n\n", nil, fail(ErrBareLF)},
	{"bare lf leading", "\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBareLF)},
	{"bare lf in method", "GE\nT / HTTP/1.1\r\n\r\n", nil, fail(ErrBareLF)},
	{"bare cr in value", "GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", nil, fail(ErrBareLF)},
	{"bare cr in name", "GET / HTTP/1.1\r\nHo\rst: h\r\n\r\n", nil, fail(ErrBareLF)},
	{"bare cr in target", "GET /a\rb HTTP/1.1\r\n\r\n", nil, fail(ErrBareLF)},
	{"bare cr after version", "GET / HTTP/1.1\r\r\n\r\n", nil, fail(ErrBareLF)},
	{"bare cr ending head", "GET / HTTP/1.1\r\nHost: h\r\n\rx", nil, fail(ErrBareLF)},
	{"bare cr leading", "\rGET / HTTP/1.1\r\n\r\n", nil, fail(ErrBareLF)},

	// Request line.
	{"leading space", " GET / HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"double space", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"tab separator", "GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"space before version twice", "GET /  HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},
	{"trailing space", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"trailing tab", "GET / HTTP/1.1\t\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"two spaces before target", "GET  /x HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"tab before version", "GET /\tHTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"space in target", "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},
	{"space in target before version", "GET /a HTTP/1.1 HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"trailing junk", "GET / HTTP/1.1x\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"http/0.9", "GET /\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"method not a token", "GE(T / HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"no target", "GET HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"empty line only", "\r\n\r\n\x00", nil, fail(ErrBadRequestLine)},
	{"asterisk without options", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"asterisk with lower-case options", "options * HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"authority-form", "CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"other scheme", "GET ftp://h/x HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"relative target", "GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"query-only target", "GET ?a HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"asterisk with path", "OPTIONS */x HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"scheme without slashes", "GET http:/x HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"absolute-form bad port", "GET http://h:65536/ HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadHost)},
	{"absolute-form fragment in authority", "GET http://h#f/ HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"fragment in path", "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"fragment in query", "GET /a?b#c HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"empty fragment", "GET /a# HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"fragment unfinished", "GET /a#", nil, fail(ErrBadRequestLine)},
	{"method over MaxMethod", "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.!~*+ /x HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrMethodTooLong)},
	{"method over MaxMethod unfinished", strings.Repeat("G", MaxMethod+1), nil, fail(ErrMethodTooLong)},
	{"long method before a short target", strings.Repeat("G", 9000) + " /x HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrMethodTooLong)},
	{"long method before a long target", strings.Repeat("G", 9000) + " /" + strings.Repeat("x", 9000) + " HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrMethodTooLong)},
	{"tab in target", "GET /a\tb HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"control in target", "GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"high byte in target", "GET /\x80 HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"backslash in query", "GET /a?\\ HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"quote in target", "GET /a\"b HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"angle bracket in target", "GET /<script> HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"backslash in target", "GET /a\\b HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"non-ascii in target", "GET /\xc3\xa9 HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"nul in target", "GET /\x00 HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"del in target", "GET /\x7f HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},

	// Version.
	{"lower-case version", "GET / http/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},
	{"version letters", "GET / HTTP/1.x\r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},
	{"version two digits", "GET / HTTP/11.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},
	{"version missing", "GET / \r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},
	{"version 2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", nil, fail(ErrVersionNotSupported)},
	{"version 1.2", "GET / HTTP/1.2\r\nHost: h\r\n\r\n", nil, fail(ErrVersionNotSupported)},
	{"version 0.9", "GET / HTTP/0.9\r\n\r\n", nil, fail(ErrVersionNotSupported)},
	{"version 3.0", "GET / HTTP/3.0\r\nHost: h\r\n\r\n", nil, fail(ErrVersionNotSupported)},
	{"version 1.1 then a digit", "GET / HTTP/1.10\r\nHost: h\r\n\r\n", nil, fail(ErrBadRequestLine)},
	{"version short", "GET / HTTP/1\r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},
	{"version without minor", "GET / HTTP/1.\r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},
	{"version with comma", "GET / HTTP/1,1\r\nHost: h\r\n\r\n", nil, fail(ErrBadVersion)},

	// Header lines.
	{"space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", nil, fail(ErrBadHeader)},
	{"obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", nil, fail(ErrBadHeader)},
	{"space before first header", "GET / HTTP/1.1\r\n Host: h\r\n\r\n", nil, fail(ErrBadHeader)},
	{"no colon", "GET / HTTP/1.1\r\nHost: h\r\nX\r\n\r\n", nil, fail(ErrBadHeader)},
	{"empty name", "GET / HTTP/1.1\r\nHost: h\r\n: v\r\n\r\n", nil, fail(ErrBadHeader)},
	{"name not a token", "GET / HTTP/1.1\r\nHost: h\r\nX(y): v\r\n\r\n", nil, fail(ErrBadHeader)},
	{"nul in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\x00b\r\n\r\n", nil, fail(ErrBadHeader)},
	{"control in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\x1bb\r\n\r\n", nil, fail(ErrBadHeader)},
	{"del in value", "GET / HTTP/1.1\r\nHost: h\r\nX: 0123456789\x7f\r\n\r\n", nil, fail(ErrBadHeader)},
	{"tab before colon", "GET / HTTP/1.1\r\nHost\t: h\r\n\r\n", nil, fail(ErrBadHeader)},
	{"obs-fold with tab", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n\tb\r\n\r\n", nil, fail(ErrBadHeader)},
	{"obs-fold of host", "GET / HTTP/1.1\r\nHost:\r\n h\r\n\r\n", nil, fail(ErrBadHost)},
	{"non-ascii in name", "GET / HTTP/1.1\r\nHost: h\r\nX\xc3\xa9: v\r\n\r\n", nil, fail(ErrBadHeader)},
	{"latin-1 in value", "GET / HTTP/1.1\r\nHost: h\r\nX: caf\xe9\r\n\r\n", nil, fail(ErrBadHeader)},
	{"lone continuation byte in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\x80b\r\n\r\n", nil, fail(ErrBadHeader)},
	{"truncated utf-8 in value", "GET / HTTP/1.1\r\nHost: h\r\nX: \xc3\r\n\r\n", nil, fail(ErrBadHeader)},
	{"truncated utf-8 before space", "GET / HTTP/1.1\r\nHost: h\r\nX: \xe2\x82 \r\n\r\n", nil, fail(ErrBadHeader)},
	{"overlong utf-8 in value", "GET / HTTP/1.1\r\nHost: h\r\nX: \xc0\xaf\r\n\r\n", nil, fail(ErrBadHeader)},
	{"surrogate in value", "GET / HTTP/1.1\r\nHost: h\r\nX: \xed\xa0\x80\r\n\r\n", nil, fail(ErrBadHeader)},
	{"bad utf-8 after the word-at-a-time scan", "GET / HTTP/1.1\r\nHost: h\r\nX: 0123456789abcdef\xff\r\n\r\n", nil, fail(ErrBadHeader)},
	{"bad utf-8 in a word", "GET / HTTP/1.1\r\nHost: h\r\nX: 0123\xfe4567890abcdef\r\n\r\n", nil, fail(ErrBadHeader)},
	{"bad utf-8 before the host check", "GET / HTTP/1.1\r\nHost: \xff\r\n\r\n", nil, fail(ErrBadHeader)},
	{"bad utf-8 in the last header over the count", "GET / HTTP/1.1\r\nHost: h\r\nA: b\r\nC: \xff\r\n\r\n", small, fail(ErrBadHeader)},

	// Host.
	{"missing host", "GET / HTTP/1.1\r\nX: y\r\n\r\n", nil, fail(ErrMissingHost)},
	{"missing host with absolute-form", "GET http://h/ HTTP/1.1\r\n\r\n", nil, fail(ErrMissingHost)},
	{"duplicate host", "GET / HTTP/1.1\r\nHost: h\r\nhost: h\r\n\r\n", nil, fail(ErrDuplicateHost)},
	{"duplicate host in http/1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", nil, fail(ErrDuplicateHost)},
	{"duplicate host with absolute-form", "GET http://h/ HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n", nil, fail(ErrDuplicateHost)},
	{"empty host in http/1.0", "GET / HTTP/1.0\r\nHost:\r\n\r\n", nil, fail(ErrBadHost)},
	{"host port 6 digits of zeros", "GET / HTTP/1.1\r\nHost: h:000080\r\n\r\n", nil, fail(ErrBadHost)},
	{"host non-ascii", "GET / HTTP/1.1\r\nHost: \xc3\xa9.example\r\n\r\n", nil, fail(ErrBadHost)},
	{"host ipv6 without brackets", "GET / HTTP/1.1\r\nHost: ::1\r\n\r\n", nil, fail(ErrBadHost)},
	{"host of 256 bytes with port", "GET / HTTP/1.1\r\nHost: " + strings.Repeat("a", 256) + ":80\r\n\r\n", nil, fail(ErrBadHost)},
	{"empty host", "GET / HTTP/1.1\r\nHost: \r\n\r\n", nil, fail(ErrBadHost)},
	{"host with space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", nil, fail(ErrBadHost)},
	{"host with userinfo", "GET / HTTP/1.1\r\nHost: u@h\r\n\r\n", nil, fail(ErrBadHost)},
	{"host with path", "GET / HTTP/1.1\r\nHost: h/x\r\n\r\n", nil, fail(ErrBadHost)},
	{"host empty port", "GET / HTTP/1.1\r\nHost: h:\r\n\r\n", nil, fail(ErrBadHost)},
	{"host port too big", "GET / HTTP/1.1\r\nHost: h:65536\r\n\r\n", nil, fail(ErrBadHost)},
	{"host port letters", "GET / HTTP/1.1\r\nHost: h:8o\r\n\r\n", nil, fail(ErrBadHost)},
	{"host two colons", "GET / HTTP/1.1\r\nHost: h:1:2\r\n\r\n", nil, fail(ErrBadHost)},
	{"host only port", "GET / HTTP/1.1\r\nHost: :80\r\n\r\n", nil, fail(ErrBadHost)},
	{"host bad pct", "GET / HTTP/1.1\r\nHost: a%2\r\n\r\n", nil, fail(ErrBadHost)},
	{"host too long", "GET / HTTP/1.1\r\nHost: " + strings.Repeat("a", 256) + "\r\n\r\n", nil, fail(ErrBadHost)},
	{"host unclosed ipv6", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", nil, fail(ErrBadHost)},
	{"host bad ipv6", "GET / HTTP/1.1\r\nHost: [fe80::1::2]\r\n\r\n", nil, fail(ErrBadHost)},
	{"host ipv6 zone", "GET / HTTP/1.1\r\nHost: [fe80::1%25eth0]\r\n\r\n", nil, fail(ErrBadHost)},
	{"host junk after ipv6", "GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n", nil, fail(ErrBadHost)},
	{"bad host even with absolute-form", "GET http://h/ HTTP/1.1\r\nHost: a b\r\n\r\n", nil, fail(ErrBadHost)},
	{"absolute-form empty authority", "GET http:///x HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadHost)},
	{"absolute-form userinfo", "GET http://u:p@h/ HTTP/1.1\r\nHost: h\r\n\r\n", nil, fail(ErrBadHost)},

	// Framing.
	{"content-length letters", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"content-length negative", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"content-length plus", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"content-length list", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"content-length inner space", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1 2\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"content-length empty", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"content-length overflow", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 9223372036854775808\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"content-length differs", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", nil, fail(ErrSmuggling)},
	{"content-length and chunked", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", nil, fail(ErrSmuggling)},
	{"chunked and content-length", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", nil, fail(ErrSmuggling)},
	{"chunked in http/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", nil, fail(ErrSmuggling)},
	{"transfer-encoding gzip", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding list", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding twice", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding empty", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding chunked twice in a list", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding trailing comma", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked,\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding leading comma", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: ,chunked\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding identity", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding with parameter", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked;q=1\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding chunked then gzip", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding gzip then chunked", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"transfer-encoding space before colon", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding : chunked\r\n\r\n", nil, fail(ErrBadHeader)},
	{"transfer-encoding chunked with inner space", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chun ked\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
	{"content-length hex", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x5\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"content-length differs after a repeat", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\n", nil, fail(ErrSmuggling)},
	{"content-length way over int64", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", nil, fail(ErrBadContentLength)},
	{"chunked in http/1.0 any case", "POST / HTTP/1.0\r\nTransfer-Encoding: Chunked\r\n\r\n", nil, fail(ErrSmuggling)},
	{"bad transfer-encoding in http/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: gzip\r\n\r\n", nil, fail(ErrBadTransferEncoding)},
}

// small limits make the limit cases readable; each names the byte counts.
var small = &Limits{MaxRequestLine: 20, MaxHeaderBytes: 30, MaxHeaders: 2}

var limitCases = []parseCase{
	// "GET /1234 HTTP/1.1\r\n" is 20 bytes.
	{"request line at limit", "GET /1234 HTTP/1.1\r\nHost: h\r\n\r\n",
		small, get("/1234", "h")},
	{"request line over limit", "GET /12345 HTTP/1.1\r\nHost: h\r\n\r\n", small, fail(ErrURITooLong)},
	{"request line incomplete over limit", "GET /12345678901234567", small, fail(ErrURITooLong)},
	{"request line incomplete at limit", "GET /123456789012345", small, incomplete},
	{"method at limit incomplete", strings.Repeat("G", MaxMethod), nil, incomplete},
	{"method cut by a short request line", strings.Repeat("G", 21), &Limits{MaxRequestLine: 20}, fail(ErrURITooLong)},
	{"empty lines count toward request line", "\r\n\r\nGET /1 HTTP/1.1\r\nHost: h\r\n\r\n", small, fail(ErrURITooLong)},
	// Headers "Host: h\r\nX: 12345678901234\r\n\r\n" are 30 bytes.
	{"header bytes at limit", "GET / HTTP/1.1\r\nHost: h\r\nX: 12345678901234\r\n\r\n",
		small, get("/", "h")},
	{"header bytes over limit", "GET / HTTP/1.1\r\nHost: h\r\nX: 123456789012345\r\n\r\n", small, fail(ErrHeaderTooLarge)},
	{"header bytes incomplete at limit", "GET / HTTP/1.1\r\nHost: h\r\nX: 12345678901234\r\n\r", small, incomplete},
	{"header bytes incomplete over limit", "GET / HTTP/1.1\r\nHost: h\r\nX: 1234567890123456789", small, fail(ErrHeaderTooLarge)},
	{"header count at limit", "GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n\r\n", small, get("/", "h")},
	{"header count over limit", "GET / HTTP/1.1\r\nHost: h\r\nA: b\r\nC: d\r\n\r\n", small, fail(ErrHeaderTooLarge)},
	{"default header limit", "GET / HTTP/1.1\r\nX: " + strings.Repeat("a", defaultMaxHeaderBytes), nil, fail(ErrHeaderTooLarge)},
	{"zero limits mean defaults", "GET / HTTP/1.1\r\nHost: h\r\n\r\n", &Limits{}, get("/", "h")},
	{"negative limits mean defaults", "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
		&Limits{MaxTarget: -1, MaxRequestLine: -1, MaxHeaderBytes: -1, MaxHeaders: -1}, get("/", "h")},

	// MaxTarget: tiny is 10 bytes of target; the request line is then
	// 1034 bytes by default.
	{"target at limit", "GET /123456789 HTTP/1.1\r\nHost: h\r\n\r\n", tiny, get("/123456789", "h")},
	{"target over limit", "GET /1234567890 HTTP/1.1\r\nHost: h\r\n\r\n", tiny, fail(ErrURITooLong)},
	{"target incomplete at limit", "GET /123456789", tiny, incomplete},
	{"target incomplete over limit", "GET /1234567890", tiny, fail(ErrURITooLong)},
	{"target over limit before a bad byte", "GET /1234567890<", tiny, fail(ErrURITooLong)},
	{"bad byte in target at limit", "GET /12345678<", tiny, fail(ErrBadRequestLine)},
	{"target over limit before a bare lf", "GET /1234567890\n", tiny, fail(ErrURITooLong)},
	{"absolute-form counts whole", "GET http://h/12 HTTP/1.1\r\nHost: h\r\n\r\n", tiny, fail(ErrURITooLong)},
	{"absolute-form at limit", "GET http://h/1 HTTP/1.1\r\nHost: h\r\n\r\n", tiny,
		result{N: whole, Method: "GET", Target: "http://h/1", Path: "/1", Host: "h", Version: "1.1", CL: -1, Keep: true}},
	{"bad target over limit", "GET abcdefghijk HTTP/1.1\r\nHost: h\r\n\r\n", tiny, fail(ErrURITooLong)},
	// With method and target at their bounds, only empty lines before the
	// request line can reach the derived limit: 504 CRLFs and a line of
	// 26 bytes are 1034.
	{"request line derived from target", strings.Repeat("\r\n", 504) + "GETT /123456789 HTTP/1.1\r\nHost: h\r\n\r\n",
		tiny, with(get("/123456789", "h"), func(r *result) { r.Method = "GETT" })},
	{"request line over derived limit", strings.Repeat("\r\n", 504) + "GETTT /123456789 HTTP/1.1\r\nHost: h\r\n\r\n",
		tiny, fail(ErrURITooLong)},
	{"request line caps target", "GET /123456789012345678901234567890 HTTP/1.1\r\n\r\n",
		&Limits{MaxTarget: 100, MaxRequestLine: 20}, fail(ErrURITooLong)},
	{"default target at limit", "GET /" + strings.Repeat("a", defaultMaxTarget-1) + " HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, get("/"+strings.Repeat("a", defaultMaxTarget-1), "h")},
	{"default target over limit", "GET /" + strings.Repeat("a", defaultMaxTarget) + " HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, fail(ErrURITooLong)},
	{"default target incomplete at limit", "GET /" + strings.Repeat("a", defaultMaxTarget-1), nil, incomplete},
	{"default target incomplete over limit", "GET /" + strings.Repeat("a", defaultMaxTarget), nil, fail(ErrURITooLong)},
	{"default request line", strings.Repeat("\r\n", 400) + "GET /" + strings.Repeat("a", defaultMaxTarget-1) + " HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, get("/"+strings.Repeat("a", defaultMaxTarget-1), "h")},
	{"default request line over", strings.Repeat("\r\n", 600) + "GET /" + strings.Repeat("a", defaultMaxTarget-1) + " HTTP/1.1\r\nHost: h\r\n\r\n",
		nil, fail(ErrURITooLong)},
	{"default header count", "GET / HTTP/1.1\r\nHost: h\r\n" + strings.Repeat("X: y\r\n", defaultMaxHeaders-1) + "\r\n",
		nil, get("/", "h")},
	{"default header count over", "GET / HTTP/1.1\r\nHost: h\r\n" + strings.Repeat("X: y\r\n", defaultMaxHeaders) + "\r\n",
		nil, fail(ErrHeaderTooLarge)},
	{"default header bytes", "GET / HTTP/1.1\r\nHost: h\r\nX: " + strings.Repeat("a", defaultMaxHeaderBytes-len("Host: h\r\nX: \r\n\r\n")) + "\r\n\r\n",
		nil, get("/", "h")},
	{"default header bytes over", "GET / HTTP/1.1\r\nHost: h\r\nX: " + strings.Repeat("a", defaultMaxHeaderBytes-len("Host: h\r\nX: \r\n\r\n")+1) + "\r\n\r\n",
		nil, fail(ErrHeaderTooLarge)},
}

// tiny limits only the target, to 10 bytes.
var tiny = &Limits{MaxTarget: 10}

var incompleteCases = []parseCase{
	{"empty", "", nil, incomplete},
	{"method", "GET", nil, incomplete},
	{"target", "GET /abc", nil, incomplete},
	{"version", "GET / HTTP/1.", nil, incomplete},
	{"cr after version", "GET / HTTP/1.1\r", nil, incomplete},
	{"request line", "GET / HTTP/1.1\r\n", nil, incomplete},
	{"header name", "GET / HTTP/1.1\r\nHo", nil, incomplete},
	{"header value", "GET / HTTP/1.1\r\nHost: h", nil, incomplete},
	{"cr after value", "GET / HTTP/1.1\r\nHost: h\r", nil, incomplete},
	{"header line", "GET / HTTP/1.1\r\nHost: h\r\n", nil, incomplete},
	{"final cr", "GET / HTTP/1.1\r\nHost: h\r\n\r", nil, incomplete},
	{"empty lines", "\r\n\r\n", nil, incomplete},
	{"empty line cr", "\r\n\r", nil, incomplete},
	// The version is not checked before its line ends, so that
	// "HTTP/2.0" followed by junk is a malformed line, not a 505.
	{"unsupported version before crlf", "GET / HTTP/2.0", nil, incomplete},
}

func TestParse(t *testing.T) {
	for _, group := range [][]parseCase{validCases, errorCases, limitCases, incompleteCases} {
		for _, tc := range group {
			t.Run(tc.name, func(t *testing.T) {
				want := tc.want
				if want.N == whole {
					want.N = len(tc.in)
				}
				if diff := cmp.Diff(want, parse(tc.in, tc.lim)); diff != "" {
					t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.in, diff)
				}
			})
		}
	}
}

// TestErrorsAreFinal checks that an error depends only on the bytes before
// it: every prefix of a bad head is either incomplete or the same error, so
// a caller may answer as soon as it sees one.
func TestErrorsAreFinal(t *testing.T) {
	for _, group := range [][]parseCase{errorCases, limitCases} {
		for _, tc := range group {
			t.Run(tc.name, func(t *testing.T) {
				full := parse(tc.in, tc.lim)
				// Every prefix of the small cases; a sample of the 64 KiB ones.
				step := max(1, len(tc.in)/1024)
				for k := 0; k < len(tc.in); k += step {
					got := parse(tc.in[:k], tc.lim)
					if got != incomplete && got != full {
						t.Fatalf("Parse(%q) = %+v, want incomplete or %+v", tc.in[:k], got, full)
					}
				}
			})
		}
	}
}

func TestHeaders(t *testing.T) {
	in := "GET / HTTP/1.1\r\nHost: h\r\nX-A:v\r\nX-B: \t two  words \t\r\nX-Empty:\r\nX-Spaces:   \r\n\r\n"
	var r Request
	if _, err := Parse([]byte(in), &r, nil); err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	for _, h := range r.Headers {
		got = append(got, [2]string{string(h.Name), string(h.Value)})
	}
	want := [][2]string{{"Host", "h"}, {"X-A", "v"}, {"X-B", "two  words"}, {"X-Empty", ""}, {"X-Spaces", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers mismatch (-want +got):\n%s", diff)
	}
}

// TestReuse checks that a reused Request carries nothing over.
func TestReuse(t *testing.T) {
	var r Request
	first := "POST http://a/x?y HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\nX: 1\r\n\r\n"
	if _, err := Parse([]byte(first), &r, nil); err != nil {
		t.Fatal(err)
	}
	second := "GET / HTTP/1.0\r\n\r\n"
	n, err := Parse([]byte(second), &r, nil)
	got := summarize(n, err)(&r)
	want := result{N: len(second), Method: "GET", Target: "/", Path: "/", Version: "1.0", CL: -1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if len(r.Headers) != 0 {
		t.Errorf("Headers = %d entries, want 0", len(r.Headers))
	}
}

func TestErrorText(t *testing.T) {
	if got, want := ErrBareLF.Error(), "httpparse: bare lf or cr in request head"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestVersionWords checks the words version compares a whole version
// with: were they wrong, every request would take the byte-by-byte path
// and still parse, so no other test would notice.
func TestVersionWords(t *testing.T) {
	for _, c := range []struct {
		word uint64
		text string
	}{{http11, "HTTP/1.1"}, {http10, "HTTP/1.0"}} {
		if got := binary.LittleEndian.Uint64([]byte(c.text)); got != c.word {
			t.Errorf("%s is %#x as a word, not %#x", c.text, got, c.word)
		}
	}
}
