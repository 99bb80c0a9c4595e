package accesslog

import (
	"time"

	"github.com/redirectd/redirectd/internal/ascii"
)

// appendTemplate writes e's line in a layout of $variables. A variable
// that does not apply to the request or is empty (no upstream, no such
// header field, no query) is "-", as in nginx, but for $is_args, which is
// empty then. With escape=json such a variable is empty.
//
// It is long because it is a table: one case per variable, each a line
// or a few, read side by side with the list of variables; it runs for
// every answer logged, where a call per variable would cost.
func (f *formatter) appendTemplate(dst []byte, e *Entry) []byte {
	t := f.format.t
	for i := range t.ops {
		o := &t.ops[i]
		switch o.v {
		case vLiteral:
			dst = append(dst, o.lit...)
		case vRemoteAddr:
			if !e.Client.IsValid() {
				dst = t.absent(dst)
			} else {
				dst = appendClient(dst, e.Client, "")
			}
		case vRemoteUser:
			dst = t.absent(dst) // redirectd asks for no credentials
		case vTimeLocal:
			dst = append(dst, f.stamp.get(e.Time, localLayout)...)
		case vTimeISO8601:
			dst = append(dst, f.iso.get(e.Time, iso8601Layout)...)
		case vMsec:
			dst = appendInt(dst, e.Time.Unix())
			dst = appendMillis(dst, e.Time)
		case vHost:
			dst = t.host(dst, e.Host)
		case vHTTPHost:
			dst = appendValue(dst, t, e.Host)
		case vRequest:
			if len(e.Method) == 0 {
				dst = t.absent(dst)
				break
			}
			dst = t.chars(dst, e.Method)
			dst = append(dst, ' ')
			dst = t.chars(dst, e.Target)
			if e.Proto != "" {
				dst = append(append(dst, ' '), e.Proto...)
			}
		case vRequestMethod:
			dst = appendValue(dst, t, e.Method)
		case vRequestURI:
			if len(e.Path) == 0 {
				dst = t.absent(dst)
				break
			}
			dst = t.chars(dst, e.Path)
			if e.Query != nil {
				dst = append(dst, '?')
				dst = t.chars(dst, e.Query)
			}
		case vURI:
			if len(e.Path) == 0 {
				dst = t.absent(dst)
				break
			}
			f.scratch = appendNormalPath(f.scratch[:0], e.Path)
			dst = t.chars(dst, f.scratch)
		case vArgs:
			// "-" after a bare '?' too, as nginx (found by comparing).
			dst = appendValue(dst, t, e.Query)
		case vIsArgs:
			if len(e.Query) > 0 {
				dst = append(dst, '?')
			}
		case vServerProtocol:
			dst = appendValue(dst, t, e.Proto)
		case vScheme:
			dst = appendValue(dst, t, e.Scheme)
		case vStatus:
			dst = appendInt(dst, int64(e.Status))
		case vBodyBytesSent:
			dst = appendInt(dst, e.BodyBytes)
		case vBytesSent:
			dst = appendInt(dst, e.Bytes)
		case vRequestTime:
			dst = appendSeconds(dst, e.Duration)
		case vUpstreamAddr:
			dst = appendValue(dst, t, e.Upstream)
		case vUpstreamStatus:
			if e.Upstream == "" || e.UpstreamStatus == 0 {
				dst = t.absent(dst)
			} else {
				dst = appendInt(dst, int64(e.UpstreamStatus))
			}
		case vUpstreamResponseTime:
			if e.Upstream == "" {
				dst = t.absent(dst)
			} else {
				dst = appendSeconds(dst, e.UpstreamTime)
			}
		case vUserAgent:
			dst = appendValue(dst, t, e.UserAgent)
		case vReferer:
			dst = appendValue(dst, t, e.Referer)
		case vSentLocation:
			dst = appendValue(dst, t, e.Location)
		case vField:
			var v []byte
			if o.arg < len(e.Fields) {
				v = e.Fields[o.arg]
			}
			dst = appendValue(dst, t, v)
		case vRule:
			dst = appendValue(dst, t, e.Rule)
		case vShadowRule:
			dst = appendValue(dst, t, e.ShadowRule)
		}
	}
	return append(dst, '\n')
}

// maxLen bounds the length of e's line, variable by variable, so that a
// long layout does not make every line look too big for the buffer.
func (t *template) maxLen(e *Entry) int {
	n := 1
	for i := range t.ops {
		o := &t.ops[i]
		var s int // bytes of the request the variable prints
		switch o.v {
		case vLiteral:
			n += len(o.lit)
			continue
		case vHost, vHTTPHost:
			s = len(e.Host)
		case vRequest:
			s = len(e.Method) + len(e.Target) + len(e.Proto)
		case vRequestMethod:
			s = len(e.Method)
		case vRequestURI, vURI, vArgs:
			s = len(e.Path) + len(e.Query)
		case vUpstreamAddr:
			s = len(e.Upstream)
		case vUserAgent:
			s = len(e.UserAgent)
		case vReferer:
			s = len(e.Referer)
		case vSentLocation:
			s = len(e.Location)
		case vField:
			if o.arg < len(e.Fields) {
				s = len(e.Fields[o.arg])
			}
		case vRule:
			s = len(e.Rule)
		case vShadowRule:
			s = len(e.ShadowRule)
		}
		n += 48 + 6*s // 48: any number, time or address
	}
	return n
}

// absent appends what a variable that does not apply prints.
func (t *template) absent(dst []byte) []byte {
	if t.json {
		return dst
	}
	return append(dst, '-')
}

// chars appends s escaped as the layout's escape says.
func (t *template) chars(dst, s []byte) []byte {
	if t.json {
		return appendJSONChars(dst, s)
	}
	return appendCombinedChars(dst, s)
}

// appendValue appends s escaped, or absent when s is empty.
func appendValue[S string | []byte](dst []byte, t *template, s S) []byte {
	switch {
	case len(s) == 0:
		return t.absent(dst)
	case t.json:
		return appendJSONChars(dst, s)
	}
	return appendCombinedChars(dst, s)
}

// host appends nginx's $host of a Host as sent: lower-case, without the
// port and a final dot.
func (t *template) host(dst, h []byte) []byte {
	end := len(h)
	if len(h) > 0 && h[0] == '[' {
		for i, c := range h {
			if c == ']' {
				end = i + 1
				break
			}
		}
	} else {
		for i, c := range h {
			if c == ':' {
				end = i
				break
			}
		}
	}
	if end > 1 && h[end-1] == '.' {
		end--
	}
	if end == 0 {
		return t.absent(dst)
	}
	start := len(dst)
	dst = t.chars(dst, h[:end])
	for i := start; i < len(dst); i++ {
		dst[i] = ascii.Lower(dst[i])
	}
	return dst
}

// appendSeconds appends d as nginx's $request_time: seconds with
// milliseconds.
func appendSeconds(dst []byte, d time.Duration) []byte {
	return appendFixed(dst, d.Milliseconds(), 3)
}

// appendNormalPath appends nginx's $uri of a path as sent: percent-decoded,
// then with "//" merged and "." and ".." segments resolved (".." above the
// root stays at the root, where nginx would have refused the request).
// Decoded bytes take part, as in nginx: "/a/%2e%2e/b" is "/b".
func appendNormalPath(dst, p []byte) []byte {
	base := len(dst)
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' && i+2 < len(p) && ascii.IsHex(p[i+1]) && ascii.IsHex(p[i+2]) {
			c = byte(ascii.Unhex(p[i+1])<<4 | ascii.Unhex(p[i+2]))
			i += 2
		}
		dst = append(dst, c)
	}
	// Cleaned in place: w never passes r.
	b := dst[base:]
	w := 0
	for r := 0; r < len(b); {
		if b[r] != '/' {
			b[w] = b[r]
			w, r = w+1, r+1
			continue
		}
		for r+1 < len(b) && b[r+1] == '/' {
			r++
		}
		end := r + 1
		for end < len(b) && b[end] != '/' {
			end++
		}
		seg := b[r+1 : end]
		switch {
		case len(seg) == 1 && seg[0] == '.':
		case len(seg) == 2 && seg[0] == '.' && seg[1] == '.':
			for w > 0 {
				w--
				if b[w] == '/' {
					break
				}
			}
		default:
			w += copy(b[w:], b[r:end])
			r = end
			continue
		}
		r = end
		if end == len(b) {
			b[w] = '/'
			w++
		}
	}
	return dst[:base+w]
}
