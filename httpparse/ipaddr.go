package httpparse

import (
	"net/netip"
	"unsafe"
)

// ParseIP parses an IPv4 dotted quad (no leading zeros) or an IPv6 address
// (RFC 4291 section 2.2, a dotted IPv4 tail allowed, no zone) in place,
// allocating nothing: for X-Forwarded-For entries and the addresses of a
// PROXY protocol v1 line, both parsed once per request or connection.
//
// netip.ParseAddr takes a string, and converting b would allocate (its
// argument escapes into its error), so b is validated by the same byte
// checks Host uses and then handed to netip.ParseAddr as an unsafe string
// view: valid input never reaches ParseAddr's error path, and ParseAddr
// keeps nothing of its argument but a zone, which validIPv6 refuses.
func ParseIP(b []byte) (netip.Addr, bool) {
	if len(b) == 0 || !(validIPv4(b) || validIPv6(b)) {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(unsafe.String(unsafe.SliceData(b), len(b)))
	return a, err == nil
}
