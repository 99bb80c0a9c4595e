package matcher

import "slices"

// nginx's $uri, byte for byte: the request path as nginx's
// ngx_http_parse_complex_uri (src/http/ngx_http_parse.c) builds r->uri.
// decode.go's decodePath is a lookup's lenient reading of it for exact
// keys; this one is the state machine itself, so that a Set compared
// with $uri (Set.NginxURI) matches what nginx's locations, rewrites and
// maps see, and refuses what nginx answers 400.
//
// Each %XX is decoded and the byte fed back into the state it was read
// in, so %2F acts as '/' and %2E as '.'; a decoded '%' or '#' (and '?',
// which arrives only so) is copied as it is and ends any dot segment.
// A '/' after a '/' is dropped unless merge is off; "/./" is dropped,
// "/x/../" drops x; a ".." above the root, an escape that is not two hex
// digits and %00 make the request invalid (nginx answers 400).

// uriFlags are what nginx notes of a path while it builds $uri.
type uriFlags uint8

const (
	// uriQuoted: the path held a '%' (r->quoted_uri).
	uriQuoted uriFlags = 1 << iota
	// uriPlus: the path held a '+', as sent or escaped (r->plus_in_uri).
	uriPlus
)

// States of the machine, as nginx names them.
const (
	swUsual = iota
	swSlash
	swDot
	swDotDot
	swQuoted
	swQuotedSecond
)

// appendNginxURI appends nginx's $uri for the path p to dst and returns
// it with the flags nginx sets; ok is false where nginx answers 400 (dst
// then holds a partial result). The result is never longer than p, so a
// dst with room for p allocates nothing.
//
// Long because it is one state machine over p, each state handling
// every byte class as nginx's does; split up, it would no longer read
// against nginx's source state by state.
func appendNginxURI(dst, p []byte, merge bool) (out []byte, flags uriFlags, ok bool) {
	start := len(dst)
	dst = slices.Grow(dst, len(p))
	b := dst[start : start+len(p)]
	u := 0
	state, quotedState := swUsual, swUsual
	var decoded byte
	for i := 0; i < len(p); {
		ch := p[i]
		i++
	again:
		switch state {
		case swDotDot:
			// After "/..": a '/', '?' or '#' climbs a segment; any
			// other byte makes the ".." part of a name, as in swUsual.
			if ch == '/' || ch == '?' || ch == '#' {
				if u = upSegment(b, u); u < 0 {
					return dst[:start], flags, false
				}
				if ch != '/' {
					return dst[:start+u], flags, true
				}
				state = swSlash
				continue
			}
			fallthrough
		case swUsual, swSlash, swDot:
			switch {
			case ch == '%':
				quotedState, state = state, swQuoted
			case ch == '?' || ch == '#':
				// Only a decoded one reaches here (see swQuotedSecond),
				// or a caller's path that was not split at '?': the path
				// ends.
				if state == swDot {
					u--
				}
				return dst[:start+u], flags, true
			case ch == '/':
				switch state {
				case swDot:
					u--
				case swSlash:
					if merge {
						break
					}
					b[u] = ch
					u++
				default:
					b[u] = ch
					u++
				}
				state = swSlash
			case ch == '.' && state == swSlash:
				state = swDot
				b[u] = ch
				u++
			case ch == '.' && state == swDot:
				state = swDotDot
				b[u] = ch
				u++
			default:
				if ch == '+' {
					flags |= uriPlus
				}
				state = swUsual
				b[u] = ch
				u++
			}
		case swQuoted:
			flags |= uriQuoted
			v := unhexNginx(ch)
			if v < 0 {
				return dst[:start], flags, false
			}
			decoded, state = byte(v), swQuotedSecond
		case swQuotedSecond:
			v := unhexNginx(ch)
			if v < 0 {
				return dst[:start], flags, false
			}
			ch = decoded<<4 | byte(v)
			switch {
			case ch == '%' || ch == '#' || ch == '?':
				state = swUsual
				b[u] = ch
				u++
				continue
			case ch == 0:
				return dst[:start], flags, false
			case ch == '+':
				flags |= uriPlus
			}
			state = quotedState
			goto again
		}
	}
	switch state {
	case swQuoted, swQuotedSecond:
		return dst[:start], flags, false
	case swDot:
		u--
	case swDotDot:
		if u = upSegment(b, u); u < 0 {
			return dst[:start], flags, false
		}
	}
	return dst[:start+u], flags, true
}

// upSegment resolves the "/.." that b[:u] ends with, as nginx does:
// back past the "/.." and the segment before it to just after the slash
// that starts that segment. It returns -1 when there is none (a ".."
// above the root).
func upSegment(b []byte, u int) int {
	for u -= 4; u >= 0; u-- {
		if b[u] == '/' {
			return u + 1
		}
	}
	return -1
}

// unhexNginx is a hex digit's value, or -1.
func unhexNginx(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}
