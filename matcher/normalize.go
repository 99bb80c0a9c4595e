package matcher

import "bytes"

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
		if c != '%' || i+2 >= len(p) || unhexDigit(p[i+1]) < 0 || unhexDigit(p[i+2]) < 0 {
			dst = append(dst, c)
			continue
		}
		v := byte(unhexDigit(p[i+1])<<4 | unhexDigit(p[i+2]))
		if isUnreserved(v) {
			dst = append(dst, v)
		} else {
			dst = append(dst, '%', upperHex(p[i+1]), upperHex(p[i+2]))
		}
		i += 2
	}
	return dst
}

// normalizeString is normalizePath for configured paths.
func normalizeString(s string) string {
	if indexPercent([]byte(s)) < 0 {
		return s
	}
	return string(normalizePath(nil, []byte(s)))
}

func indexPercent(p []byte) int { return bytes.IndexByte(p, '%') }

func unhexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func upperHex(c byte) byte {
	if c >= 'a' && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// appendLower appends p with ASCII letters lower-cased.
func appendLower(dst, p []byte) []byte {
	for _, c := range p {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func lowerString(s string) string {
	return string(appendLower(nil, []byte(s)))
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
