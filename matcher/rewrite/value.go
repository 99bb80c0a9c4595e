package rewrite

import "bytes"

// appendScript appends the value of sc to dst. With quote, captures are
// escaped as nginx escapes them in a redirect or a query (escapeCapture,
// only when the path as sent held '%' or '+').
func (s *Scratch) appendScript(dst []byte, req *Request, sc *script, quote bool) []byte {
	for i := range sc.parts {
		pt := &sc.parts[i]
		switch pt.kind {
		case vLiteral:
			dst = append(dst, pt.lit...)
		case vCapture:
			if quote && s.quoted {
				dst = appendEscaped(dst, s.capture(pt.n), &escapeCaptureLocation)
			} else {
				dst = append(dst, s.capture(pt.n)...)
			}
		default:
			dst = s.appendVar(dst, req, pt)
		}
	}
	return dst
}

// appendScriptLocation appends the value of sc to dst as
// appendLocationSafe would append what appendScript builds, in one pass:
// a redirect's Location is written where it goes, and only the parts
// that may hold a byte to escape are scanned (a literal part was at
// compile time).
func (s *Scratch) appendScriptLocation(dst []byte, req *Request, sc *script, quote bool) []byte {
	for i := range sc.parts {
		pt := &sc.parts[i]
		switch pt.kind {
		case vLiteral:
			if pt.escLit {
				dst = appendLocationSafe(dst, pt.lit)
			} else {
				dst = append(dst, pt.lit...)
			}
		case vCapture:
			if quote && s.quoted {
				dst = appendEscaped(dst, s.capture(pt.n), &escapeCaptureLocation)
			} else {
				dst = appendLocationSafe(dst, s.capture(pt.n))
			}
		default:
			k := len(dst)
			dst = s.appendVar(dst, req, pt)
			if v := dst[k:]; locationUnsafe(v) < len(v) {
				s.buf = append(s.buf[:0], v...)
				dst = appendLocationSafe(dst[:k], s.buf)
			}
		}
	}
	return dst
}

// appendVar appends the value of the variable pt.
func (s *Scratch) appendVar(dst []byte, req *Request, pt *part) []byte {
	switch pt.kind {
	case vHost:
		return append(dst, req.Host...)
	case vHTTPHost:
		return append(dst, header(req, "host")...)
	case vURI:
		return append(dst, s.bytes(s.uri)...)
	case vRequestURI:
		return append(dst, req.Target...)
	case vArgs:
		return append(dst, s.bytes(s.args)...)
	case vIsArgs:
		if s.args.n > 0 {
			dst = append(dst, '?')
		}
		return dst
	case vScheme:
		s.schemeRead = true
		if req.HTTPS {
			return append(dst, "https"...)
		}
		return append(dst, "http"...)
	case vMethod:
		if s.asGET {
			return append(dst, "GET"...)
		}
		return append(dst, req.Method...)
	case vPort:
		return append(dst, req.Port...)
	case vArg:
		return append(dst, param(s.bytes(s.args), pt.name, '&')...)
	case vHTTP:
		s.xfpRead = s.xfpRead || pt.xfp
		if req.Fields == nil {
			return dst
		}
		return append(dst, req.Fields.Header(pt.name)...)
	case vCookie:
		return append(dst, param(header(req, "cookie"), pt.name, ';')...)
	case vUser, vMap:
		// A map not yet read is empty here: prepare evaluates it first.
		return append(dst, s.bytes(s.vars[pt.n])...)
	}
	return dst
}

// header returns the field name of req, nil without one.
func header(req *Request, name string) []byte {
	if req.Fields == nil {
		return nil
	}
	return req.Fields.Header(bytesOf(name))
}

// hostName and cookieName are the fields header asks for, so that the
// conversion allocates nothing.
var hostName, cookieName = []byte("host"), []byte("cookie")

func bytesOf(name string) []byte {
	if name == "host" {
		return hostName
	}
	return cookieName
}

// param returns the value of the first name=value pair of list (split
// at sep, blanks after sep skipped) whose name is name without case, as
// nginx's ngx_http_arg and cookie lookup; nil when none.
func param(list, name []byte, sep byte) []byte {
	for len(list) > 0 {
		var item []byte
		if i := bytes.IndexByte(list, sep); i >= 0 {
			item, list = list[:i], list[i+1:]
		} else {
			item, list = list, nil
		}
		if sep == ';' {
			item = bytes.TrimLeft(item, " \t")
		}
		if len(item) > len(name) && item[len(name)] == '=' && bytes.EqualFold(item[:len(name)], name) {
			return item[len(name)+1:]
		}
	}
	return nil
}

// holds evaluates an if's condition; a regex's captures become the
// request's.
func (s *Scratch) holds(req *Request, cd *cond) bool {
	s.preparePart(req, &cd.left)
	s.prepare(req, cd.right.parts)
	start := len(s.arena)
	s.arena = s.appendVar(s.arena, req, &cd.left)
	left := s.arena[start:]
	switch cd.op {
	case opTrue:
		return len(left) > 0 && !(len(left) == 1 && left[0] == '0')
	case opEq, opNe:
		mid := len(s.arena)
		s.arena = s.appendScript(s.arena, req, &cd.right, false)
		eq := bytes.Equal(s.arena[start:mid], s.arena[mid:])
		s.arena = s.arena[:mid]
		return eq == (cd.op == opEq)
	}
	return s.matchRegex(cd.re, left) == (cd.op == opMatch)
}
