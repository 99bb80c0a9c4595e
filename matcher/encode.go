package matcher

import (
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// A Location on the wire is a URI reference (RFC 9110 10.2.2, RFC 3986
// 4.1), which holds no space, no byte above 0x7e and none of
// `"<>\^`{|}`. A `to` may hold them as written (a site's own map of
// "/caf\u00e9" or "/a <embed>"): they are percent-encoded when the
// Location is written, as the sites' own servers and browsers send them,
// and an escape already there is kept. Configured text is encoded once,
// when the rule is compiled; text from the request is encoded as it is
// appended only where it was decoded ($uri).

// escapeInTarget reports whether c is percent-encoded in a configured
// target: bytes a URI reference never holds as they are.
func escapeInTarget(c byte) bool { return targetEscapes[c] }

// targetEscapes holds escapeInTarget for every byte: a table, because
// every `to` of a million-rule map is scanned with it at load, and a
// search of the punctuation per byte was a quarter of the load's time.
var targetEscapes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = !ascii.IsVisible(byte(c)) || strings.IndexByte("\"<>\\^`{|}", byte(c)) >= 0
	}
	return t
}()

// NeedsEncoding reports whether EncodeTarget changes to.
func NeedsEncoding(to string) bool {
	for i := 0; i < len(to); i++ {
		if targetStops[to[i]] && (to[i] != '%' || !validEscape(to, i)) {
			return true
		}
	}
	return false
}

// targetStops is targetEscapes and '%': one look-up per byte for
// NeedsEncoding, which every `to` of a million-rule map passes at load.
var targetStops = func() (t [256]bool) {
	t = targetEscapes
	t['%'] = true
	return t
}()

// EncodeTarget returns to with the bytes a URI reference cannot hold
// percent-encoded ("/a <b>" is "/a%20%3Cb%3E", "/caf\u00e9" is
// "/caf%C3%A9"), and a '%' that starts no escape written "%25"; escapes
// already there are kept, and so is the scheme and host of an absolute
// target (an international host name is the browser's to convert). It
// returns to itself when nothing changes. `redirectd check` and the
// server both use it, so that they agree on what a target sends.
func EncodeTarget(to string) string {
	if !NeedsEncoding(to) {
		return to
	}
	start := max(authorityEnd(to), 0)
	var b strings.Builder
	b.Grow(len(to) + 16)
	b.WriteString(to[:start])
	for i := start; i < len(to); i++ {
		c := to[i]
		if escapeInTarget(c) || c == '%' && !validEscape(to, i) {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// validEscape reports whether s[i], a '%', starts an escape.
func validEscape(s string, i int) bool {
	return i+2 < len(s) && ascii.Unhex(s[i+1]) >= 0 && ascii.Unhex(s[i+2]) >= 0
}

// pathSafe marks the bytes a path segment holds as they are (RFC 3986
// 3.3 pchar, and '/'): unreserved, sub-delims, ':' and '@'.
var pathSafe = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isUnreserved(byte(c)) || strings.IndexByte("!$&'()*+,;=:@/", byte(c)) >= 0
	}
	return t
}()

// appendEscapedPath appends p, a decoded path, encoded back into a path:
// every byte a path does not hold as it is, '%', '?' and '#' included,
// as %XX, so that decoding the result gives p again.
func appendEscapedPath(dst, p []byte) []byte {
	for _, c := range p {
		if pathSafe[c] {
			dst = append(dst, c)
		} else {
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return dst
}
