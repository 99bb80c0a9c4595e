package httpparse

import "github.com/redirectd/redirectd/internal/ascii"

// Byte classes as [256]bool tables: one indexed load per byte, no bounds
// check (a byte index cannot leave a 256-entry array), no branches on ranges.
// The token, hex digit and lower-case tables, which other packages need as
// well, are in internal/ascii.

const (
	digits = "0123456789"
	alphas = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// targetTable holds the bytes we accept in a request-target. RFC 3986 allows
// fewer (no "[ ] { } | ^ `" outside their places), but browsers and crawlers
// send those raw, so we accept every visible ASCII byte except the ones no
// URI can hold and that a downstream Location header or log line would
// misread: '"', '<', '>' and '\'. Controls, SP, DEL and bytes >= 0x80 are
// rejected (RFC 9112 section 3.2; RFC 3986 section 2). '#' is rejected too:
//
//	origin-form   = absolute-path [ "?" query ]
//	absolute-form = absolute-URI
//	absolute-URI  = scheme ":" hier-part [ "?" query ]
//
// (RFC 9112 section 3.2, RFC 3986 section 4.3): no form has a fragment, and
// '#' is in neither a path nor a query. Taking it as a path byte would make
// "/a#b" a path nginx or an upstream reads as "/a".
var targetTable = func() [256]bool {
	t := byteRange(0x21, 0x7e)
	for _, c := range []byte(`"<>\#`) {
		t[c] = false
	}
	return t
}()

// valueTable holds the bytes of a header field value.
//
//	field-value = *field-content
//	field-vchar = VCHAR / obs-text
//	obs-text    = %x80-FF
//
// plus SP and HTAB inside the value (RFC 9110 section 5.5). Every other
// control byte, DEL included, is rejected; CR ends the value.
var valueTable = func() [256]bool {
	t := byteRange(0x21, 0x7e)
	for c := 0x80; c <= 0xff; c++ {
		t[c] = true
	}
	t[' '], t['\t'] = true, true
	return t
}()

// regNameTable holds the bytes of a host name other than '%'.
//
//	reg-name   = *( unreserved / pct-encoded / sub-delims )
//	unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
//	sub-delims = "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
//
// (RFC 3986 section 3.2.2). An IPv4 address is a reg-name too.
var regNameTable = byteSet("-._~" + "!$&'()*+,;=" + digits + alphas)

func byteSet(s string) (t [256]bool) {
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return t
}

func byteRange(lo, hi byte) (t [256]bool) {
	for c := int(lo); c <= int(hi); c++ {
		t[c] = true
	}
	return t
}

// equalFold reports whether b equals lower, ignoring ASCII case in b.
// lower must be lower case already.
func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if ascii.Lower(b[i]) != lower[i] {
			return false
		}
	}
	return true
}
