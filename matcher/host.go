package matcher

import "github.com/redirectd/redirectd/internal/ascii"

// maxHostLen bounds a host name (RFC 1035 allows 253 characters plus a dot;
// the HTTP parser allows 255). Longer hosts match only host-less rules.
const maxHostLen = 256

// normalizeHost appends the lookup key of a Host header value to dst: lower
// case, without port, without a trailing dot. It reports false when the host
// is too long to be a configured host.
func normalizeHost(dst, host []byte) ([]byte, bool) {
	end := len(host)
	if end > 0 && host[0] == '[' {
		// IPv6 literal: the port, if any, follows ']'.
		for i := range host {
			if host[i] == ']' {
				end = i + 1
				break
			}
		}
	} else {
		for i := len(host) - 1; i >= 0; i-- {
			if host[i] == ':' {
				end = i
				break
			}
		}
	}
	host = host[:end]
	if n := len(host); n > 0 && host[n-1] == '.' {
		host = host[:n-1]
	}
	if len(host) > cap(dst)-len(dst) {
		return dst, false
	}
	return ascii.AppendLower(dst, host), true
}

// appendHost appends host as $host gives it: lower case, without port or
// trailing dot.
func appendHost(dst, host []byte) []byte {
	var buf [maxHostLen]byte
	key, ok := normalizeHost(buf[:0], host)
	if !ok {
		return dst
	}
	return append(dst, key...)
}
