package accesslog

import "unicode/utf8"

const hexDigits = "0123456789ABCDEF"

// plainCombined marks the bytes a combined line carries as they are:
// printable ASCII except '"' (it ends the field) and '\' (it starts an
// escape). Everything else becomes \xHH, as nginx's ngx_http_log_escape
// does, so a client can neither end the line (CR, LF), end the field, nor
// send terminal escapes (ESC, C1 controls in UTF-8) to whoever tails the log.
var plainCombined = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	t['"'] = false
	t['\\'] = false
	return t
}()

// appendCombinedField appends s escaped for a combined line, or "-" when s is
// empty, as nginx prints an empty variable.
func appendCombinedField[S string | []byte](dst []byte, s S) []byte {
	if len(s) == 0 {
		return append(dst, '-')
	}
	return appendCombinedChars(dst, s)
}

// appendCombinedChars appends s escaped as nginx's escape=default does.
func appendCombinedChars[S string | []byte](dst []byte, s S) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plainCombined[c] {
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		start = i + 1
	}
	return append(dst, s[start:]...)
}

// jsonEscape says how an ASCII byte goes into a JSON string (RFC 8259
// section 7): 0 copies it, 'u' writes \u00XX, anything else is the letter of
// a two-character escape. RFC 8259 requires escaping '"', '\' and U+0000
// through U+001F; DEL is escaped too so a line stays printable.
var jsonEscape = func() (t [utf8.RuneSelf]byte) {
	for c := 0; c < 0x20; c++ {
		t[c] = 'u'
	}
	t['\b'], t['\f'], t['\n'], t['\r'], t['\t'] = 'b', 'f', 'n', 'r', 't'
	t['"'], t['\\'] = '"', '\\'
	t[0x7f] = 'u'
	return t
}()

// appendJSONString appends s as a quoted JSON string. Valid UTF-8 beyond
// ASCII is copied, except the C1 controls (terminals act on U+009B as on
// ESC [) and U+2028/U+2029 (JavaScript line terminators), which are escaped.
// A byte that is not valid UTF-8 becomes \ufffd, as encoding/json does, so
// the line is valid JSON for every reader.
func appendJSONString[S string | []byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	dst = appendJSONChars(dst, s)
	return append(dst, '"')
}

// appendJSONChars is appendJSONString without the quotes, for nginx's
// escape=json.
func appendJSONChars[S string | []byte](dst []byte, s S) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			e := jsonEscape[c]
			if e == 0 {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			if e == 'u' {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				dst = append(dst, '\\', e)
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r < 0xa0, r == '\u2028', r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// decodeRune is utf8.DecodeRune for either string type, written out
// because converting a []byte to a string (or either to an interface) to
// call the standard one could allocate. It follows the table of RFC 3629
// section 4: no overlong forms, no surrogates, nothing above U+10FFFF; an
// invalid sequence yields (utf8.RuneError, 1).
func decodeRune[S string | []byte](s S) (rune, int) {
	const bad = utf8.RuneError
	c0 := s[0]
	var n int
	lo, hi := byte(0x80), byte(0xbf) // range of the second byte
	switch {
	case c0 < utf8.RuneSelf:
		return rune(c0), 1
	case c0 < 0xc2:
		return bad, 1
	case c0 < 0xe0:
		n = 2
	case c0 < 0xf0:
		n = 3
		if c0 == 0xe0 {
			lo = 0xa0
		} else if c0 == 0xed {
			hi = 0x9f
		}
	case c0 < 0xf5:
		n = 4
		if c0 == 0xf0 {
			lo = 0x90
		} else if c0 == 0xf4 {
			hi = 0x8f
		}
	default:
		return bad, 1
	}
	if len(s) < n || s[1] < lo || s[1] > hi {
		return bad, 1
	}
	r := rune(c0&(0x7f>>n))<<6 | rune(s[1]&0x3f)
	for i := 2; i < n; i++ {
		if s[i]&0xc0 != 0x80 {
			return bad, 1
		}
		r = r<<6 | rune(s[i]&0x3f)
	}
	return r, n
}
