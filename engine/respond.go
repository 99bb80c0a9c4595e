package engine

import (
	"bytes"
	"strconv"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// statusLines holds the status line of every status the server answers
// with, so that writing one is a single append.
var statusLines = map[int]string{
	301: "HTTP/1.1 301 Moved Permanently\r\n",
	302: "HTTP/1.1 302 Found\r\n",
	303: "HTTP/1.1 303 See Other\r\n",
	307: "HTTP/1.1 307 Temporary Redirect\r\n",
	308: "HTTP/1.1 308 Permanent Redirect\r\n",
	400: "HTTP/1.1 400 Bad Request\r\n",
	404: "HTTP/1.1 404 Not Found\r\n",
	408: "HTTP/1.1 408 Request Timeout\r\n",
	413: "HTTP/1.1 413 Content Too Large\r\n",
	414: "HTTP/1.1 414 URI Too Long\r\n",
	431: "HTTP/1.1 431 Request Header Fields Too Large\r\n",
	500: "HTTP/1.1 500 Internal Server Error\r\n",
	501: "HTTP/1.1 501 Not Implemented\r\n",
	505: "HTTP/1.1 505 HTTP Version Not Supported\r\n",
}

// redirectLines is statusLines for the redirect statuses as an array, since
// a map lookup per redirect is measurable on the hot path.
var redirectLines [9]string

func init() {
	for code := 301; code <= 308; code++ {
		redirectLines[code-300] = statusLines[code]
	}
}

// appendConnection appends the Connection header an answer needs: close
// when the server will close, keep-alive for an HTTP/1.0 client that asked
// to stay open (1.0 closes by default, RFC 9112 9.3), nothing otherwise.
func appendConnection(dst []byte, req *httpparse.Request, closing bool) []byte {
	switch {
	case closing:
		return append(dst, "Connection: close\r\n"...)
	case req.Minor == 0:
		return append(dst, "Connection: keep-alive\r\n"...)
	}
	return dst
}

// appendRedirect appends a redirect answer with an empty body.
func appendRedirect(dst []byte, m *matcher.Match, req *httpparse.Request, date []byte, closing bool) []byte {
	dst = append(dst, redirectLines[m.Status()-300]...)
	dst = append(dst, "Location: "...)
	dst = m.AppendLocation(dst, req.Query)
	dst = append(dst, "\r\nContent-Length: 0\r\n"...)
	dst = append(dst, date...)
	dst = appendConnection(dst, req, closing)
	return append(dst, "\r\n"...)
}

// appendText appends an answer with a short text/plain body; head leaves
// the body out, as a HEAD request needs (RFC 9110 9.3.2).
func appendText(dst []byte, status int, body string, head bool, req *httpparse.Request, date []byte, closing bool) []byte {
	line, ok := statusLines[status]
	if !ok {
		line = "HTTP/1.1 " + strconv.Itoa(status) + " \r\n"
	}
	dst = append(dst, line...)
	dst = append(dst, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n"...)
	dst = append(dst, date...)
	dst = appendConnection(dst, req, closing)
	dst = append(dst, "\r\n"...)
	if !head {
		dst = append(dst, body...)
	}
	return dst
}

// appendHTTPSRedirect answers with a 301 to the same host (without its
// port, which served plain HTTP) and target over https.
func appendHTTPSRedirect(dst []byte, req *httpparse.Request, date []byte, closing bool) []byte {
	host := req.Host
	if len(host) == 0 {
		return appendText(dst, 400, "a Host header is needed to redirect to https\n", false, req, date, closing)
	}
	if i := bytes.LastIndexByte(host, ':'); i >= 0 && bytes.IndexByte(host[i:], ']') < 0 {
		host = host[:i]
	}
	dst = append(dst, redirectLines[301-300]...)
	dst = append(dst, "Location: https://"...)
	dst = append(dst, host...)
	dst = append(dst, req.Path...)
	if req.Query != nil {
		dst = append(dst, '?')
		dst = append(dst, req.Query...)
	}
	dst = append(dst, "\r\nContent-Length: 0\r\n"...)
	dst = append(dst, date...)
	dst = appendConnection(dst, req, closing)
	return append(dst, "\r\n"...)
}
