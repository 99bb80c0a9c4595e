package engine

import (
	"errors"
	"strconv"
	"unsafe"

	"github.com/redirectd/redirectd/httpparse"
	"github.com/redirectd/redirectd/matcher"
)

// statusLines holds the status line of every status the server answers
// with, so that writing one is a single append.
var statusLines = map[int]string{
	200: "HTTP/1.1 200 OK\r\n",
	301: "HTTP/1.1 301 Moved Permanently\r\n",
	302: "HTTP/1.1 302 Found\r\n",
	303: "HTTP/1.1 303 See Other\r\n",
	307: "HTTP/1.1 307 Temporary Redirect\r\n",
	308: "HTTP/1.1 308 Permanent Redirect\r\n",
	400: "HTTP/1.1 400 Bad Request\r\n",
	404: "HTTP/1.1 404 Not Found\r\n",
	408: "HTTP/1.1 408 Request Timeout\r\n",
	410: "HTTP/1.1 410 Gone\r\n",
	413: "HTTP/1.1 413 Content Too Large\r\n",
	414: "HTTP/1.1 414 URI Too Long\r\n",
	431: "HTTP/1.1 431 Request Header Fields Too Large\r\n",
	451: "HTTP/1.1 451 Unavailable For Legal Reasons\r\n",
	500: "HTTP/1.1 500 Internal Server Error\r\n",
	501: "HTTP/1.1 501 Not Implemented\r\n",
	505: "HTTP/1.1 505 HTTP Version Not Supported\r\n",
}

// redirectLines is statusLines for the redirect statuses as an array, since
// a map lookup per redirect is measurable on the hot path.
var redirectLines [9]string

// redirectHeads is redirectLines followed by the Location field's name,
// the start of every redirect appendRedirect writes, in one append.
var redirectHeads [9]string

func init() {
	for code := 301; code <= 308; code++ {
		redirectLines[code-300] = statusLines[code]
		redirectHeads[code-300] = statusLines[code] + "Location: "
	}
}

// connField is the Connection field an answer carries.
type connField uint8

const (
	// connDefault: none; an HTTP/1.1 connection stays open.
	connDefault connField = iota
	// connClose: the server closes after the answer.
	connClose
	// connKeepAlive: an HTTP/1.0 client asked to stay open, and 1.0
	// closes by default (RFC 9112 9.3), so the answer says it stays.
	connKeepAlive
)

// connFieldFor is the Connection field of an answer to an HTTP/1.x client
// (http10: 1.0) after which the server closes or not.
func connFieldFor(http10, closing bool) connField {
	switch {
	case closing:
		return connClose
	case http10:
		return connKeepAlive
	}
	return connDefault
}

// connFieldOf is connFieldFor for req.
func connFieldOf(req *httpparse.Request, closing bool) connField {
	return connFieldFor(req.Minor == 0, closing)
}

func appendConnection(dst []byte, cf connField) []byte {
	switch cf {
	case connClose:
		return append(dst, "Connection: close\r\n"...)
	case connKeepAlive:
		return append(dst, "Connection: keep-alive\r\n"...)
	}
	return dst
}

// fields are the header lines every answer on the connection carries:
// Strict-Transport-Security on the TLS port when hsts is set; on a plain
// connection whose X-Forwarded-Proto https_redirect believes, a Vary on
// it, since every answer there (the redirect to https, or what the rules
// and the upstream answer) depends on it. Without it a cache between the
// TLS terminator and redirectd would replay the 301 to https visitors,
// who would then loop.
//
// Without https_redirect, an answer that read the scheme such a header
// gave varies on it too (readScheme): a rule's when.scheme, servers
// split by scheme, $scheme in the rewrite phase, an absolute Location's
// origin. One that a rewrite-phase step decided by reading the field
// itself ($http_x_forwarded_proto) varies on it on any connection.
func (cs *conn) fields() string {
	switch {
	case cs.tls && cs.loop.readXFP:
		return cs.loop.srv.hstsVary
	case cs.tls:
		return cs.loop.srv.hsts
	case cs.loop.readXFP, cs.proxy.xfp && (cs.loop.srv.opts.HTTPSRedirect || cs.loop.byProto):
		return varyForwardedProto
	}
	return ""
}

// readScheme notes that the answer being made depends on the request's
// scheme, which on a plain connection X-Forwarded-Proto may have given:
// for an absolute Location's origin (cs.forwardedHTTPS) when the
// connection trusts the header, for the rest (cs.https) when it trusts
// the connection's X-Forwarded-For too. The answer then varies on it.
func (cs *conn) readScheme(origin bool) {
	if !cs.tls && cs.proxy.xfp && (origin || cs.proxy.xff) {
		cs.loop.byProto = true
	}
}

const varyForwardedProto = "Vary: X-Forwarded-Proto\r\n"

// ruleHeaders are the configured header lines of an answer m decides: the
// rule's own (merged with the server's when the config was read), else
// the server's. Both are strings built at load, so this costs no
// allocation.
func ruleHeaders(m *matcher.Match, rules *matcher.Set) string {
	if h := m.Headers(); h != "" {
		return h
	}
	return rules.Headers()
}

// appendRedirect appends a redirect answer with an empty body; extra are
// the configured header lines (ruleHeaders).
func (cs *conn) appendRedirect(dst []byte, m *matcher.Match, req *httpparse.Request, extra string, date []byte, cf connField) []byte {
	dst = append(dst, redirectHeads[m.Status()-300]...)
	dst = cs.appendLocation(dst, m, req)
	vary, fields := m.Vary(), cs.fields() // after the Location, which may read the scheme
	if vary == "" && fields == "" && extra == "" && cf == connDefault {
		return append(dst, cs.loop.redirectTail(date)...)
	}
	dst = append(dst, "\r\nContent-Length: 0\r\n"...)
	dst = append(dst, vary...) // conditions.go
	dst = append(dst, fields...)
	dst = append(dst, extra...)
	dst = append(dst, date...)
	dst = appendConnection(dst, cf)
	return append(dst, "\r\n"...)
}

// redirectTail is what follows the Location of most redirects: the
// Content-Length, the Date line date and the end of the head, built once
// a second (when the Date line is replaced) rather than appended in
// three steps per answer.
func (l *loop) redirectTail(date []byte) []byte {
	if p := unsafe.SliceData(date); p != l.tailDate {
		l.tail = append(append(append(l.tail[:0], "\r\nContent-Length: 0\r\n"...), date...), "\r\n"...)
		l.tailDate = p
	}
	return l.tail
}

// appendText appends an answer with a short text/plain body; head leaves
// the body out, as a HEAD request needs (RFC 9110 9.3.2). fields are more
// header lines, each ending in CRLF.
func appendText(dst []byte, status int, fields, body string, head bool, date []byte, cf connField) []byte {
	return appendTextWith(dst, status, fields, "", body, head, date, cf)
}

// appendTextWith is appendText with extra, the configured header lines
// (ruleHeaders), after fields.
func appendTextWith(dst []byte, status int, fields, extra, body string, head bool, date []byte, cf connField) []byte {
	return appendTextVary(dst, status, "", fields, extra, body, head, date, cf)
}

// appendTextVary is appendTextWith with vary, the Vary line of an answer
// that rule conditions decided (matcher.Match.Vary), before fields. The
// body is a string (the server's own texts) or bytes (a return's text).
func appendTextVary[B ~string | ~[]byte](dst []byte, status int, vary, fields, extra string, body B, head bool, date []byte, cf connField) []byte {
	line, ok := statusLines[status]
	if !ok {
		line = "HTTP/1.1 " + strconv.Itoa(status) + " \r\n"
	}
	dst = append(dst, line...)
	dst = append(dst, "Content-Type: text/plain; charset=utf-8\r\nContent-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n"...)
	dst = append(dst, vary...)
	dst = append(dst, fields...)
	dst = append(dst, extra...)
	dst = append(dst, date...)
	dst = appendConnection(dst, cf)
	dst = append(dst, "\r\n"...)
	if !head {
		dst = append(dst, body...)
	}
	return dst
}

// appendNoLocation answers a rule whose status has no Location (410 Gone,
// 451): a short text body, left out for HEAD, and the connection kept as
// for a redirect.
func (cs *conn) appendNoLocation(out []byte, req *httpparse.Request, rules *matcher.Set, status int, date []byte, closing bool) ([]byte, verdict) {
	m := &cs.loop.match
	v := verdict{status: status, outcome: outRedirect, rule: cs.loop.ruleSource(m)}
	return appendTextVary(out, status, m.Vary(), cs.fields(), ruleHeaders(m, rules), matcher.StatusText(status), isHead(req.Method), date, connFieldOf(req, closing)), v
}

// appendHTTPSRedirect answers with a 301 to the same host (without its
// port, which served plain HTTP) and target over https.
func appendHTTPSRedirect(dst []byte, req *httpparse.Request, fields, extra string, date []byte, cf connField) []byte {
	host := httpparse.HostName(req.Host)
	dst = append(dst, redirectLines[301-300]...)
	dst = append(dst, "Location: https://"...)
	dst = append(dst, host...)
	dst = append(dst, req.Path...)
	if req.Query != nil {
		dst = append(dst, '?')
		dst = append(dst, req.Query...)
	}
	dst = append(dst, "\r\nContent-Length: 0\r\n"...)
	dst = append(dst, fields...)
	dst = append(dst, extra...)
	dst = append(dst, date...)
	dst = appendConnection(dst, cf)
	return append(dst, "\r\n"...)
}

// appendParseError answers a request that could not be parsed with the
// status the parser chose (400 for anything unclassified).
func appendParseError(dst []byte, err error, fields string, date []byte) ([]byte, verdict) {
	status, msg := 400, "bad request\n"
	var pe *httpparse.Error
	if errors.As(err, &pe) {
		status = pe.Status
		msg = pe.Msg + "\n"
	}
	return appendText(dst, status, fields, msg, false, date, connClose), verdict{status: status, outcome: errorOutcome(status), closing: true}
}

func errorOutcome(status int) outcome {
	if status >= 500 {
		return outServerError
	}
	return outClientError
}
