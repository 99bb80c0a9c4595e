package matcher

import (
	"bytes"

	"github.com/redirectd/redirectd/internal/ascii"
)

// Path normalisation, applied alike to configured paths and request paths
// so that equivalent spellings match the same rule (RFC 3986 6.2.2):
// percent-encoded unreserved characters (ALPHA, DIGIT, '-', '.', '_', '~')
// are decoded and the hex digits of every other escape are upper-cased.
// Nothing else changes: "/a%2Fb" keeps its encoded slash, "." and ".."
// segments and doubled slashes stay as sent.

// normalizePath returns p normalised. It returns p itself when there is
// nothing to change, else appends the result to dst.
func normalizePath(dst, p []byte) []byte {
	i := indexPercent(p)
	if i < 0 {
		return p
	}
	dst = append(dst, p[:i]...)
	for ; i < len(p); i++ {
		c := p[i]
		if c != '%' || i+2 >= len(p) || ascii.Unhex(p[i+1]) < 0 || ascii.Unhex(p[i+2]) < 0 {
			dst = append(dst, c)
			continue
		}
		v := byte(ascii.Unhex(p[i+1])<<4 | ascii.Unhex(p[i+2]))
		if isUnreserved(v) {
			dst = append(dst, v)
		} else {
			dst = append(dst, '%', upperHex(p[i+1]), upperHex(p[i+2]))
		}
		i += 2
	}
	return dst
}

// normalizeString is normalizePath for configured paths. A configured
// path may also hold bytes a request target never does (a space, a byte
// of UTF-8, '"', '<', '>', '\\': see httpparse's target table): those are
// percent-encoded first, as a client sends them, so that "/old essay"
// matches "/old%20essay" as it does in nginx, which compares $uri decoded.
func normalizeString(s string) string {
	if i := indexUnsent(s); i >= 0 {
		b := []byte(s[:i])
		for ; i < len(s); i++ {
			if c := s[i]; unsent(c) {
				b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
			} else {
				b = append(b, c)
			}
		}
		s = string(b)
	}
	if indexPercent([]byte(s)) < 0 {
		return s
	}
	return string(normalizePath(nil, []byte(s)))
}

const hexDigits = "0123456789ABCDEF"

// unsent reports whether a request target never holds c as it is.
func unsent(c byte) bool {
	return !ascii.IsVisible(c) || c == '"' || c == '<' || c == '>' || c == '\\'
}

// indexUnsent returns the index of the first byte of s that unsent
// reports, or -1.
func indexUnsent(s string) int {
	for i := 0; i < len(s); i++ {
		if unsent(s[i]) {
			return i
		}
	}
	return -1
}

func indexPercent(p []byte) int { return bytes.IndexByte(p, '%') }

func upperHex(c byte) byte {
	if c >= 'a' && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func lowerString(s string) string {
	return string(ascii.AppendLower(nil, s))
}

// trimSlash drops one trailing '/', except from "/" itself.
func trimSlash(p []byte) []byte {
	if n := len(p); n > 1 && p[n-1] == '/' {
		return p[:n-1]
	}
	return p
}

func trimSlashString(s string) string {
	if n := len(s); n > 1 && s[n-1] == '/' {
		return s[:n-1]
	}
	return s
}
