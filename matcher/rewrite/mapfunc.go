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
	name, opts, _ := strings.Cut(ms.Function, " ")
	fn, ok := mapFuncs[name]
	if !ok {
		return nil, &Error{Map: m.name, Line: ms.Line, Key: "function", Msg: fmt.Sprintf("%q: not a function (tolower, toupper, escape, unescape, urlencode)", ms.Function)}
	}
	if strings.TrimSpace(ms.Entries) != "" || ms.Default != "" {
		return nil, &Error{Map: m.name, Line: ms.Line, Key: "function", Msg: "a map of a function has no entries and no default"}
	}
	if opts != "" {
		if fn != fnURLEncode {
			return nil, &Error{Map: m.name, Line: ms.Line, Key: "function", Msg: fmt.Sprintf("%q: only urlencode takes options", ms.Function)}
		}
		t, err := urlencodeTable(opts)
		if err != nil {
			return nil, &Error{Map: m.name, Line: ms.Line, Key: "function", Msg: fmt.Sprintf("%q: %v", ms.Function, err)}
		}
		m.enc = t
	}
	m.fn = fn
	m.shared = m.independent()
	return m, nil
}

// What urlencodeTable says of a byte.
const (
	encKeep byte = iota
	encHex
	encPlus
)

// urlencodeTable reads urlencode's options, mod_rewrite's [B] variants
// (escape_backref): "only=CHARS" escapes only those bytes ([B=chars]),
// "ctls" the controls and space ([BCTLS]), "except=CHARS" never those
// ([BNE=chars]), "noplus" a space as %20 ([BNP]). CHARS is
// percent-decoded. An escaped letter, digit or '_' is still kept.
func urlencodeTable(opts string) (*[256]byte, error) {
	var only, except string
	var ctls, noplus bool
	for _, o := range strings.Fields(opts) {
		k, v, hasV := strings.Cut(o, "=")
		var err error
		switch {
		case k == "only" && hasV:
			only, err = percentDecode(v)
		case k == "except" && hasV:
			except, err = percentDecode(v)
		case k == "ctls" && !hasV:
			ctls = true
		case k == "noplus" && !hasV:
			noplus = true
		default:
			return nil, fmt.Errorf("option %q: want only=CHARS, except=CHARS, ctls or noplus", o)
		}
		if err != nil {
			return nil, err
		}
	}
	var t [256]byte
	for i := range t {
		c := byte(i)
		esc := only == "" && !ctls || strings.IndexByte(only, c) >= 0 || ctls && (c <= ' ' || c == 0x7f)
		switch {
		case !esc || strings.IndexByte(except, c) >= 0 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_':
			t[i] = encKeep
		case c == ' ' && !noplus:
			t[i] = encPlus
		default:
			t[i] = encHex
		}
	}
	return &t, nil
}

// percentDecode decodes every %XX of s; a '%' without two hex digits is
// an error.
func percentDecode(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' {
			if i+2 >= len(s) || !ascii.IsHex(s[i+1]) || !ascii.IsHex(s[i+2]) {
				return "", fmt.Errorf("%q: a '%%' without two hex digits", s)
			}
			c = byte(ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2]))
			i += 2
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// applyEnc appends key encoded by an urlencode table.
func applyEnc(dst, key []byte, t *[256]byte) []byte {
	for _, c := range key {
		switch t[c] {
		case encKeep:
			dst = append(dst, c)
		case encPlus:
			dst = append(dst, '+')
		default:
			dst = append(dst, '%', lowerHex[c>>4], lowerHex[c&15])
		}
	}
	return dst
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
