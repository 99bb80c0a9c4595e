package matcher

import (
	"unicode"
	"unicode/utf8"

	"github.com/redirectd/redirectd/internal/ascii"
)

// The decoded form of a path is nginx's $uri, which `map $uri` and sites
// that decode before they look up (MDN's) compare: every valid %XX
// escape decoded, %2F included, then slashes merged and "." and ".."
// segments resolved, in that order, so "/a%2F..%2Fb" is "/b" as nginx
// has it. nginx answers 400 to an invalid escape, a %00 and a ".." above
// the root; a lookup has no 400 to give, so an invalid escape stays as
// sent, %00 is decoded like any other (no key holds it) and ".." stops
// at the root. (TestDecodedAsNginx compares with a real nginx.)

// decodePath appends the decoded form of p to dst. It returns p itself
// when that is already its decoded form.
func decodePath(dst, p []byte) []byte {
	if !needsDecoding(p) {
		return p
	}
	start := len(dst)
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' && i+2 < len(p) && ascii.Unhex(p[i+1]) >= 0 && ascii.Unhex(p[i+2]) >= 0 {
			c = byte(ascii.Unhex(p[i+1])<<4 | ascii.Unhex(p[i+2]))
			i += 2
		}
		dst = append(dst, c)
	}
	return dst[:start+resolveSegments(dst[start:])]
}

// needsDecoding reports whether p holds an escape, a doubled slash or a
// "." segment (which may be "..").
func needsDecoding(p []byte) bool {
	for i, c := range p {
		switch {
		case c == '%':
			return true
		case c == '/' && i+1 < len(p) && p[i+1] == '/':
			return true
		case c == '.' && i > 0 && p[i-1] == '/' && (i+1 == len(p) || p[i+1] == '/' || p[i+1] == '.'):
			return true
		}
	}
	return false
}

// resolveSegments merges the slashes of b and resolves its "." and ".."
// segments in place (RFC 3986 5.2.4, as nginx's ngx_http_parse_complex_uri
// does it), returning the new length. A path ending in a "." or ".."
// segment ends in '/', as nginx leaves "/a/b/.." as "/a/".
func resolveSegments(b []byte) int {
	w := 0
	for r := 0; r < len(b); {
		if b[r] == '/' {
			if w == 0 || b[w-1] != '/' {
				b[w] = '/'
				w++
			}
			r++
			continue
		}
		e := r
		for e < len(b) && b[e] != '/' {
			e++
		}
		switch seg := b[r:e]; {
		case len(seg) == 1 && seg[0] == '.':
		case len(seg) == 2 && seg[0] == '.' && seg[1] == '.':
			if w > 1 { // b[:w] ends with the '/' after the segment to drop
				j := w - 1
				for j > 0 && b[j-1] != '/' {
					j--
				}
				w = j
			}
		default:
			w += copy(b[w:], seg)
		}
		r = e
	}
	return w
}

// appendFoldUnicode appends p with every letter lower-cased by Unicode's
// simple case mapping (unicode.ToLower, as JavaScript's toLowerCase for
// all but a few letters that lower-case to two), so "/B\u00c9ZIER" and
// "/b\u00e9zier" are the same key. Bytes that are not valid UTF-8 are kept
// as they are.
func appendFoldUnicode(dst, p []byte) []byte {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			dst = append(dst, ascii.Lower(c))
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, c)
		} else {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += n
	}
	return dst
}
