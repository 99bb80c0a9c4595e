package rewrite

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// mapFunc is a map whose value is computed from its source rather than
// looked up: Apache's RewriteMap int: functions, which an import of
// mod_rewrite's rules needs and nginx's map cannot say.
type mapFunc uint8

const (
	fnNone mapFunc = iota
	fnToLower
	fnToUpper
	fnEscape
	fnUnescape
	fnURLEncode
)

// mapFuncs are the functions by name.
var mapFuncs = map[string]mapFunc{
	"tolower": fnToLower, "toupper": fnToUpper, "escape": fnEscape, "unescape": fnUnescape, "urlencode": fnURLEncode,
}

// compileFuncMap compiles a map of a Function: it has no entries and no
// default, as its value is always the function's.
func (c *compiler) compileFuncMap(m *mapVar, ms *MapSpec) (*mapVar, error) {
	fn, ok := mapFuncs[ms.Function]
	if !ok {
		return nil, &Error{Map: m.name, Line: ms.Line, Key: "function", Msg: fmt.Sprintf("%q: not a function (tolower, toupper, escape, unescape, urlencode)", ms.Function)}
	}
	if strings.TrimSpace(ms.Entries) != "" || ms.Default != "" {
		return nil, &Error{Map: m.name, Line: ms.Line, Key: "function", Msg: "a map of a function has no entries and no default"}
	}
	m.fn = fn
	m.shared = m.independent()
	return m, nil
}

const lowerHex = "0123456789abcdef"

// escapeKept are the bytes Apache's ap_escape_uri (T_OS_ESCAPE_PATH)
// leaves as they are: letters, digits and $-_.+!*'(),:;@&=/~.
var escapeKept = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("$-_.+!*'(),:;@&=/~", byte(c)) >= 0
	}
	return t
}()

// apply appends the function of key to dst, allocating nothing once dst
// has room. The escapes are Apache's, lower-case hex as its c2x writes.
func (f mapFunc) apply(dst, key []byte) []byte {
	switch f {
	case fnToLower:
		return ascii.AppendLower(dst, key)
	case fnToUpper:
		for _, c := range key {
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
		}
	case fnEscape:
		for _, c := range key {
			if escapeKept[c] {
				dst = append(dst, c)
			} else {
				dst = append(dst, '%', lowerHex[c>>4], lowerHex[c&15])
			}
		}
	case fnURLEncode:
		// mod_rewrite's escape_backref: letters, digits and '_' kept, a
		// space as '+', any other byte escaped.
		for _, c := range key {
			switch {
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_':
				dst = append(dst, c)
			case c == ' ':
				dst = append(dst, '+')
			default:
				dst = append(dst, '%', lowerHex[c>>4], lowerHex[c&15])
			}
		}
	case fnUnescape:
		// ap_unescape_url: each %XX decoded (a '/' too), a '%' without
		// two hex digits kept; Apache's C string ends at a decoded NUL.
		for i := 0; i < len(key); i++ {
			c := key[i]
			if c == '%' && i+2 < len(key) && ascii.IsHex(key[i+1]) && ascii.IsHex(key[i+2]) {
				c = byte(ascii.Unhex(key[i+1])<<4 | ascii.Unhex(key[i+2]))
				i += 2
			}
			if c == 0 {
				return dst
			}
			dst = append(dst, c)
		}
	default:
		return append(dst, key...)
	}
	return dst
}
