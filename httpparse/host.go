package httpparse

import (
	"bytes"

	"github.com/redirectd/redirectd/internal/ascii"
)

// validHost reports whether b is a Host value or absolute-form authority:
//
//	Host     = uri-host [ ":" port ]
//	uri-host = IP-literal / IPv4address / reg-name
//
// (RFC 9110 section 7.2, RFC 3986 section 3.2.2). reg-name is at most 255
// bytes (the DNS limit, RFC 1035 section 2.3.4); the port, when present, is
// 1 to 5 digits up to 65535. Empty hosts, empty ports, userinfo, IPvFuture
// and IPv6 zone identifiers are rejected.
func validHost(b []byte) bool {
	if len(b) > 0 && b[0] == '[' {
		end := bytes.IndexByte(b, ']')
		if end < 0 || !validIPv6(b[1:end]) {
			return false
		}
		rest := b[end+1:]
		return len(rest) == 0 || rest[0] == ':' && validPort(rest[1:])
	}
	// One pass for the usual name without escapes: every request has a
	// Host, and two scans (the ':', then the name) were 8 % of the
	// instructions of answering a short pipelined request.
	n := 0
	for n < len(b) && regNameTable[b[n]] {
		n++
	}
	if n == len(b) || b[n] == ':' {
		return n > 0 && n <= 255 && (n == len(b) || validPort(b[n+1:]))
	}
	if i := bytes.IndexByte(b, ':'); i >= 0 {
		if !validPort(b[i+1:]) {
			return false
		}
		b = b[:i]
	}
	return validRegName(b)
}

// SplitHostPort splits a Host value or absolute-form authority at the
// ':' before its port: name keeps an IPv6 literal's brackets, port is
// empty when there is none. Unlike net.SplitHostPort it takes a host
// without a port, keeps the brackets, and allocates nothing.
func SplitHostPort[T ~string | ~[]byte](host T) (name, port T) {
	for i := len(host) - 1; i >= 0; i-- {
		switch host[i] {
		case ']':
			return host, port
		case ':':
			return host[:i], host[i+1:]
		}
	}
	return host, port
}

// HostName is host without its port: "example.com:8080" is
// "example.com", "[::1]:80" is "[::1]".
func HostName[T ~string | ~[]byte](host T) T {
	name, _ := SplitHostPort(host)
	return name
}

func validRegName(b []byte) bool {
	if len(b) == 0 || len(b) > 255 {
		return false
	}
	for i := 0; i < len(b); i++ {
		if regNameTable[b[i]] {
			continue
		}
		// pct-encoded = "%" HEXDIG HEXDIG
		if b[i] != '%' || i+2 >= len(b) || !ascii.IsHex(b[i+1]) || !ascii.IsHex(b[i+2]) {
			return false
		}
		i += 2
	}
	return true
}

func validPort(b []byte) bool {
	if len(b) == 0 || len(b) > 5 {
		return false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n <= 65535
}

// validIPv6 reports whether b is an IPv6address (RFC 3986 section 3.2.2,
// RFC 4291 section 2.2): eight groups of 1 to 4 hex digits separated by
// ':', at most one "::" standing for one or more zero groups, and an
// optional dotted IPv4 address in place of the last two groups.
func validIPv6(b []byte) bool {
	groups, elided := 0, false
	i := 0
	if len(b) >= 2 && b[0] == ':' && b[1] == ':' {
		elided, i = true, 2
	}
	for i < len(b) {
		j := i
		for j < len(b) && j-i < 4 && ascii.IsHex(b[j]) {
			j++
		}
		if j < len(b) && b[j] == '.' {
			if !validIPv4(b[i:]) {
				return false
			}
			groups += 2
			break
		}
		if j == i {
			return false
		}
		groups++
		i = j
		if i == len(b) {
			break
		}
		if b[i] != ':' || i+1 == len(b) {
			return false
		}
		i++
		if b[i] == ':' {
			if elided {
				return false
			}
			elided = true
			i++
		}
	}
	if elided {
		return groups <= 7
	}
	return groups == 8
}

// validIPv4 reports whether b is a dotted-quad of dec-octets, which RFC 3986
// section 3.2.2 writes without leading zeros.
func validIPv4(b []byte) bool {
	for part := 0; part < 4; part++ {
		if part > 0 {
			if len(b) == 0 || b[0] != '.' {
				return false
			}
			b = b[1:]
		}
		n, i := 0, 0
		for i < len(b) && i < 3 && '0' <= b[i] && b[i] <= '9' {
			n = n*10 + int(b[i]-'0')
			i++
		}
		if i == 0 || n > 255 || (i > 1 && b[0] == '0') {
			return false
		}
		b = b[i:]
	}
	return len(b) == 0
}
