package matcher

import (
	"bytes"
	"unsafe"
)

// URI says which path a Set's rules compare (Builder.SetURI). The zero
// value is the normalised path (normalize.go).
//
// It is a setting of the whole Set, not of a rule: nginx builds $uri
// once per request, before any location, rewrite or map sees it, and
// answers 400 before any of them. So the Set builds it once per lookup,
// in the pass that looks the rules up, and every rule of every host
// compares it.
type URI struct {
	// Nginx: exact, prefix and regex rules (and maps) compare nginx's $uri
	// (nginxuri.go); rules with RequestURI still compare the target as
	// sent. A path nginx answers 400 matches no rule, and Match.BadURI
	// reports it. Groups and a prefix rule's rest go into the Location
	// as nginx sends them (appendNginxCapture).
	Nginx bool
	// KeepSlashes keeps "//" in $uri, as nginx's `merge_slashes off`.
	KeepSlashes bool
}

// SetURI sets which path the rules compare; call it before the first
// Add, as it decides the keys rules are filed under.
func (b *Builder) SetURI(u URI) {
	b.s.uriMode = u
	b.s.eachHost(func(h *hostRules) { h.uriMode = u })
}

// URI returns which path the Set's rules compare.
func (s *Set) URI() URI { return s.uriMode }

// BadURI reports whether the last Lookup's path is one nginx answers 400
// (an invalid escape, %00, a ".." above the root), in a Set compared
// with nginx's $uri: the server answers 400 too.
func (m *Match) BadURI() bool { return m.bad }

// RefusesURI reports whether the Set compares nginx's $uri and nginx
// answers 400 to path, for answers decided before any lookup (the
// server's https redirect). It uses m's memory and allocates nothing;
// m's last match is then lost.
//
// The $uri it builds is kept: the next Lookup, of the same path (the
// same bytes of the same buffer), and NginxURI use it rather than build
// it again, unless ForgetURI comes first.
func (s *Set) RefusesURI(path []byte, m *Match) bool {
	m.rule, m.pk, m.lx, m.shadow = nil, nil, nil, nil
	if !s.uriMode.Nginx {
		return false
	}
	m.raw, m.ngxMode, m.uriKept = path, s.uriMode, true
	return !m.nginxURIPath(path, s.uriMode)
}

// NginxURI returns nginx's $uri of path as RefusesURI or Lookup built
// it for this request, with ok false when neither did (or nginx answers
// 400): the rewrite phase then builds its own. The slice is m's (or
// path itself) and valid until the next Lookup.
func (m *Match) NginxURI(path []byte) (uri []byte, ok bool) {
	if m.ngx && !m.bad && samePath(m.raw, path) {
		return m.dec, true
	}
	return nil, false
}

// ForgetURI drops the $uri kept for the request: a caller that serves
// requests from one buffer calls it as each starts, since the next
// request's path may lie at the same place with other bytes.
func (m *Match) ForgetURI() { m.ngx, m.raw, m.uriKept = false, nil, false }

// samePath reports whether a and b are the same bytes of one buffer.
func samePath(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// nginxKey returns a configured path as nginx's $uri for it, the key the
// rule is filed under in a Set of URI.Nginx. A '?' or '#' in a path
// written in the config is a byte of the key (reached by %3F or %23),
// and so is a '%' that starts no escape (reached by %25); ok is false for
// a path no request's $uri can be (%00, a ".." above the root).
func nginxKey(from string, u URI) (string, bool) {
	b := make([]byte, 0, len(from)+8)
	for i := 0; i < len(from); i++ {
		switch c := from[i]; {
		case c == '?' || c == '#' || c == '%' && !validEscape(from, i):
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
		default:
			b = append(b, c)
		}
	}
	out, _, ok := appendNginxURI(nil, b, !u.KeepSlashes)
	return string(out), ok
}

// checkNginxFrom refuses an exact or prefix rule that no request can
// reach in a Set of URI.Nginx.
func checkNginxFrom(in *Rule, u URI) error {
	if !u.Nginx || in.Kind == Regex || in.RequestURI {
		return nil
	}
	if _, ok := nginxKey(in.From, u); !ok {
		return fieldErr("from", "%q is a path nginx answers 400 (a %%00, or a \"..\" above the root), so no request reaches it", in.From)
	}
	return nil
}

// nginxPlain reports whether a plain exact rule's From is its own key in
// a Set of URI.Nginx, so that it may live in the packed table: no escape,
// '?', '#' or byte a target never holds (plainPath), and nothing that
// slash merging or dot segments change.
func nginxPlain(from string, u URI) bool {
	if !u.Nginx {
		return true
	}
	for i := 0; i < len(from); i++ {
		switch {
		case from[i] == '/' && i+1 < len(from) && from[i+1] == '/' && !u.KeepSlashes:
			return false
		case from[i] == '.' && i > 0 && from[i-1] == '/' && (i+1 == len(from) || from[i+1] == '/' || from[i+1] == '.'):
			return false
		}
	}
	return true
}

// nginxURIPath builds the request's $uri into m.dec for a lookup in a
// Set of URI.Nginx; false when nginx answers 400.
func (m *Match) nginxURIPath(path []byte, u URI) bool {
	m.decoded, m.ngx = true, true
	if flags, ok := plainNginxURI(path, !u.KeepSlashes); ok {
		// Most paths are their own $uri: no copy.
		m.dec, m.uflags, m.bad = path, flags, false
		return true
	}
	var ok bool
	m.dec, m.uflags, ok = appendNginxURI(m.decBuf[:0], path, !u.KeepSlashes)
	m.decBuf, m.bad = m.dec[:0], !ok
	return ok
}

// plainNginxURI reports whether path is its own $uri, as most are: no
// escape, '?' or '#', and no "//" (when merging) or segment starting
// with '.'. It returns the flags nginx would note ('+').
func plainNginxURI(path []byte, merge bool) (uriFlags, bool) {
	// One pass over a table: on short paths a search per byte kind
	// cost more than the lookup it comes before.
	var flags uriFlags
	for i, c := range path {
		switch uriClass[c] {
		case uriStop:
			return 0, false
		case uriSlash:
			if i+1 < len(path) && (path[i+1] == '.' || path[i+1] == '/' && merge) {
				return 0, false
			}
		case uriPlusByte:
			flags = uriPlus
		}
	}
	return flags, true
}

// Classes of bytes for plainNginxURI.
const (
	uriCopy = iota
	uriStop
	uriSlash
	uriPlusByte
)

var uriClass = func() (t [256]uint8) {
	t['%'], t['?'], t['#'], t['/'], t['+'] = uriStop, uriStop, uriStop, uriSlash, uriPlusByte
	return t
}()

// nginxPath reports whether path, a regex match's input, is the $uri
// built by nginxURIPath (not the target of a RequestURI rule).
func (m *Match) nginxPath(path []byte) bool {
	return m != nil && m.ngx && len(path) > 0 && unsafe.SliceData(path) == unsafe.SliceData(m.dec)
}

// appendNginxCapture appends b, bytes of $uri taken into a Location (a
// regex group, a prefix rule's rest), as nginx sends them
// (ngx_http_script_copy_capture_code, then ngx_unescape_uri with
// NGX_UNESCAPE_REDIRECT over the Location up to its first '?'): as they
// are when the path held no '%' and no '+'; else escaped by
// NGX_ESCAPE_ARGS and that escaping undone for the bytes from '&' to '~'
// that stand before the Location's first '?'. The one difference from
// nginx: a byte a Location cannot hold (escapeInTarget: a space, a
// control, a byte above 0x7e, one of `"<>\^`{|}`), which nginx may send
// as it is, is percent-encoded. dst[mark:] is the Location so far.
func appendNginxCapture(dst []byte, mark int, b []byte, flags uriFlags) []byte {
	quote := flags&(uriQuoted|uriPlus) != 0
	inQuery := quote && bytes.IndexByte(dst[mark:], '?') >= 0
	for _, c := range b {
		switch {
		case inQuery:
			if escapeArgs[c] {
				dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
				continue
			}
		case quote && c == '?':
			// Escaped, then unescaped, and the unescaping stops there.
			inQuery = true
		case escapeInTarget(c) || quote && (c == '#' || c == '%'):
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// escapeArgs is nginx's NGX_ESCAPE_ARGS table (ngx_escape_uri in
// src/core/ngx_string.c): controls, space, `"#%&+;<>?\^`{|}`, DEL and
// bytes above it.
var escapeArgs = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c <= ' ' || c >= 0x7f
	}
	for _, c := range []byte("\"#%&+;<>?\\^`{|}") {
		t[c] = true
	}
	return t
}()
