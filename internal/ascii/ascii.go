// Package ascii classifies and lower-cases ASCII bytes: the RFC 9110 token
// character, hex digits, control characters. The parser, the matcher and
// the config checks all ask these questions, and this is the one place
// that answers them, so that a field name the config accepts is one the
// parser accepts too. It imports nothing: every package may use it.
package ascii

// Byte classes are [256] tables: one indexed load per byte, no bounds
// check (a byte cannot leave a 256-entry array), no branches on ranges,
// which is what the parser's per-byte loops need.

const (
	digits = "0123456789"
	alphas = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// tokenTable holds the bytes of a method or a header field name.
//
//	token = 1*tchar
//	tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
//	        "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
//
// (RFC 9110 section 5.6.2)
var tokenTable = byteSet("!#$%&'*+-.^_`|~" + digits + alphas)

// hexTable holds HEXDIG (RFC 5234 appendix B.1), in either case.
var hexTable = byteSet(digits + "abcdefABCDEF")

// lowerTable maps ASCII upper case to lower case and every other byte to
// itself.
var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = byte(c) + 'a' - 'A'
	}
	return t
}()

func byteSet(s string) (t [256]bool) {
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return t
}

// TokenChar reports whether c is an RFC 9110 tchar: a letter, a digit or
// one of !#$%&'*+-.^_`|~.
func TokenChar(c byte) bool { return tokenTable[c] }

// IsToken reports whether s is an RFC 9110 token: one or more tchar, what
// a method, a header field name and a cookie name are.
func IsToken[T ~string | ~[]byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenTable[s[i]] {
			return false
		}
	}
	return true
}

// IsVisible reports whether c is a visible ASCII character (VCHAR, RFC
// 5234 appendix B.1: '!' to '~'): not a control, not SP, not past ASCII.
func IsVisible(c byte) bool { return c > ' ' && c < 0x7f }

// IsHex reports whether c is a hex digit, in either case.
func IsHex(c byte) bool { return hexTable[c] }

// Unhex returns the value of the hex digit c (either case), or -1 when c
// is not one.
func Unhex(c byte) int {
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

// Lower returns c lower-cased if it is an ASCII capital letter, else c:
// a byte of a UTF-8 sequence is never changed.
func Lower(c byte) byte { return lowerTable[c] }

// AppendLower appends s to dst with its ASCII letters lower-cased and
// every other byte as it is.
func AppendLower[T ~string | ~[]byte](dst []byte, s T) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, lowerTable[s[i]])
	}
	return dst
}

// EqualFold reports whether a and b are equal with ASCII letters compared
// without case. Other bytes must be equal: unlike bytes.EqualFold it does
// not fold Unicode, which no header name or token holds.
func EqualFold[T ~string | ~[]byte](a []byte, b T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerTable[a[i]] != lowerTable[b[i]] {
			return false
		}
	}
	return true
}

// IsControl reports whether c, a byte or a rune, is an ASCII control
// character (CTL, RFC 5234 appendix B.1: 0x00 to 0x1F and DEL), HTAB and
// the line ends among them. As a rune it takes no other: U+0080 to U+009F
// are not.
func IsControl[C ~byte | ~rune](c C) bool { return c < 0x20 || c == 0x7f }

// IndexControl returns the index of the first control character in s, or
// -1 when there is none. A byte of a UTF-8 sequence is never one, so the
// answer is the same as when s is read rune by rune.
func IndexControl[T ~string | ~[]byte](s T) int {
	for i := 0; i < len(s); i++ {
		if IsControl(s[i]) {
			return i
		}
	}
	return -1
}
