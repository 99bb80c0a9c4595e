package matcher

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// template is a rule's To split at its group references, so that building
// a Location is a few appends.
type template struct {
	parts []templatePart
	// hasQuery records whether To already holds '?', so that the request's
	// query is joined with '&' rather than '?'.
	hasQuery bool
	// keepQuery says to append the request's query (QueryKeep).
	keepQuery bool
	// authParts counts the leading parts that are To's scheme and host
	// (0 when To names none): appendLocation keeps whatever follows them
	// on that host, and a Location without one on the request's.
	authParts int
}

// templatePart is literal text (group partLiteral), a regex group (group
// >= 0), or one of the request's host, path or query.
type templatePart struct {
	lit   string
	group int
}

// Template parts that are not groups.
const (
	partLiteral = -1
	partHost    = -2 // $host: the request's host, lower case, without port
	partPath    = -3 // $path: the request's path
	partQuery   = -4 // $query: the request's query, without '?'
	partURI     = -5 // $uri: the request's path decoded (decode.go), encoded again
)

// specialVars are the variables a regex rule's To may use besides its
// groups; a group of the same name wins.
var specialVars = map[string]int{"host": partHost, "path": partPath, "query": partQuery, "uri": partURI}

// parseTemplate splits to at $N, ${N} and ${name} references, which only
// regex rules have (names and numbers index into names as
// regexp.SubexpNames does); "$$" is a literal '$'. Exact and prefix rules
// pass names == nil and get to as one literal part, '$' included.
//
// Unlike regexp.Expand, a reference to a group the regex does not have is an
// error: it would otherwise expand to nothing and hide a typo.
func parseTemplate(to string, names []string, mode QueryMode) (template, error) {
	if mode == QueryDrop {
		to = dropQuery(to)
	}
	t := template{hasQuery: strings.IndexByte(beforeFragment(to), '?') >= 0, keepQuery: mode == QueryKeep}
	rest := to
	if end := authorityEnd(to); end >= 0 {
		if host := strings.TrimLeft(to[schemeEnd(to):end], "/\\"); host == "" || host[0] == '$' && !strings.HasPrefix(host, "$host") && !strings.HasPrefix(host, "${host}") {
			return t, fmt.Errorf("%q names no host after its scheme; write one, so that no request can name the host it is sent to", to)
		}
		// The scheme and host are literal (or the request's own host), and
		// a part of their own, so that appendLocation knows where they end.
		if err := t.addParts(to[:end], names, false); err != nil {
			return t, err
		}
		t.authParts, rest = len(t.parts), to[end:]
		for i, p := range t.parts {
			if p.group == partLiteral || p.group == partHost {
				continue
			}
			if i < len(t.parts)-1 || i == 0 {
				return t, fmt.Errorf("%q takes its scheme or host from the request; write them, so that no request can name the host it is sent to ($host, the request's own, is allowed)", to)
			}
			// "https://new.example$1": what the group holds follows the
			// host; appendLocation puts a '/' before it if needed.
			t.authParts = i
		}
	}
	if err := t.addParts(rest, names, true); err != nil {
		return t, err
	}
	return t, nil
}

// beforeFragment returns to up to its '#', if any.
func beforeFragment(to string) string {
	if i := strings.IndexByte(to, '#'); i >= 0 {
		return to[:i]
	}
	return to
}

// dropQuery returns to without its query, keeping its fragment:
// "/b?x=1#f" is "/b#f".
func dropQuery(to string) string {
	q := strings.IndexByte(beforeFragment(to), '?')
	if q < 0 {
		return to
	}
	if f := strings.IndexByte(to, '#'); f >= 0 {
		return to[:q] + to[f:]
	}
	return to[:q]
}

// addParts appends the parts of s, a piece of To, to t.parts; encode
// says to percent-encode its literal text (EncodeTarget), as the path,
// query and fragment of a target are.
func (t *template) addParts(s string, names []string, encode bool) error {
	if s == "" {
		return nil
	}
	literal := func(s string) templatePart {
		if encode {
			s = EncodeTarget(s)
		}
		return templatePart{lit: s, group: partLiteral}
	}
	if names == nil || strings.IndexByte(s, '$') < 0 {
		t.parts = append(t.parts, literal(s))
		return nil
	}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, literal(lit.String()))
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		text, name, n, err := templateToken(s[i:])
		if err != nil {
			return err
		}
		i += n
		if text != "" {
			lit.WriteString(text)
			continue
		}
		g := groupIndex(name, names)
		if g < 0 {
			if v, ok := specialVars[name]; ok {
				g = v
			} else {
				return fmt.Errorf("%q refers to group %q, which the regex does not have (it has %d; $host, $path, $uri and $query are also known)", s, name, len(names)-1)
			}
		}
		flush()
		t.parts = append(t.parts, templatePart{group: g})
	}
	flush()
	return nil
}

// authorityEnd returns where the scheme and host of to end ("https://a.b"
// in "https://a.b/x", "//a.b" in "//a.b?q"), or -1 when to names no host:
// it has no scheme and does not start with "//". Browsers take '\' for
// '/' there, and "https:a.b" for "https://a.b", so both count.
func authorityEnd(to string) int {
	start := schemeEnd(to)
	if start == 0 {
		if len(to) < 2 || to[0] != '/' && to[0] != '\\' || to[1] != '/' && to[1] != '\\' {
			return -1
		}
	}
	for start < len(to) && (to[start] == '/' || to[start] == '\\') {
		start++
	}
	// A loop, not strings.IndexAny, which builds its set at each call:
	// every `to` of a million-rule map comes here at load.
	for i := start; i < len(to); i++ {
		if c := to[i]; c == '/' || c == '?' || c == '#' || c == '\\' {
			return i
		}
	}
	return len(to)
}

// schemeEnd returns the length of s's scheme and its ':' (RFC 3986 3.1:
// ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"), or 0.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// templateToken reads the piece of a template that s starts with: text
// up to the next '$' or "$$" (as "$"), or else a reference, by name. n is
// the bytes it took; err is templateRef's for a '$' that starts no
// reference.
func templateToken(s string) (text, name string, n int, err error) {
	if s[0] != '$' {
		if n = strings.IndexByte(s, '$'); n < 0 {
			n = len(s)
		}
		return s[:n], "", n, nil
	}
	if len(s) > 1 && s[1] == '$' {
		return "$", "", 2, nil
	}
	name, n, err = templateRef(s[1:])
	return "", name, n + 1, err
}

// templateRef reads the reference after a '$': "{name}" or a run of
// letters, digits and underscores, as regexp.Expand does. It returns the
// name and how many bytes it took.
func templateRef(s string) (string, int, error) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 2 {
			return "", 0, fmt.Errorf("unterminated or empty ${...} in %q; write $$ for a literal $", s)
		}
		return s[1:end], end + 1, nil
	}
	n := 0
	for n < len(s) && isNameByte(s[n]) {
		n++
	}
	if n == 0 {
		return "", 0, fmt.Errorf("$ not followed by a group number or name in %q; write $$ for a literal $", s)
	}
	return s[:n], n, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// groupIndex resolves a reference to a group number, or -1.
func groupIndex(name string, names []string) int {
	num := 0
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			num = -1
			break
		}
		num = num*10 + int(name[i]-'0')
		if num >= len(names) {
			return -1
		}
	}
	if num >= 0 {
		return num
	}
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// appendLocation appends the Location for a match to dst: the template with
// its groups filled from caps over path (and $host, $path, $uri, $query
// from m's request), then rest (the unmatched tail of a prefix rule), then
// the request's query when the rule keeps it.
func (t *template) appendLocation(dst, path []byte, caps []int, rest []byte, m *Match, query []byte) []byte {
	mark, authEnd := len(dst), -1
	if t.authParts == 0 {
		authEnd = mark
	}
	for i := range t.parts {
		if i == t.authParts && i > 0 {
			authEnd = len(dst)
		}
		p := &t.parts[i]
		switch p.group {
		case partLiteral:
			dst = append(dst, p.lit...)
		case partHost:
			dst = appendHost(dst, m.host)
		case partPath:
			// The path as the client sent it, as nginx's $request_uri.
			dst = append(dst, m.raw...)
		case partURI:
			if m.ngx {
				// As nginx's variable: raw, a byte a Location cannot
				// hold percent-encoded.
				dst = appendNginxCapture(dst, mark, m.dec, 0)
			} else {
				dst = appendEscapedPath(dst, m.decodedPath())
			}
		case partQuery:
			dst = append(dst, query...)
		default:
			if lo, hi := caps[2*p.group], caps[2*p.group+1]; lo >= 0 {
				if m.nginxPath(path) {
					dst = appendNginxCapture(dst, mark, path[lo:hi], m.uflags)
				} else {
					dst = append(dst, path[lo:hi]...)
				}
			}
		}
	}
	if t.authParts == len(t.parts) && t.authParts > 0 {
		authEnd = len(dst)
	}
	if m != nil && m.ngx && len(rest) > 0 {
		dst = appendNginxCapture(dst, mark, rest, m.uflags)
	} else {
		dst = append(dst, rest...)
	}
	if t.keepQuery && len(query) > 0 {
		dst = appendQuery(dst, mark, query, t.hasQuery)
	}
	if t.authParts > 0 {
		return guardAuthority(dst, authEnd)
	}
	return guardRelative(dst, mark)
}

// guardAuthority keeps what follows the written scheme and host (ending at
// end) a path, query or fragment: "https://new.example" and a prefix
// rule's rest ".evil.net" or "@evil.net" would otherwise name another
// host, so a '/' goes between them.
func guardAuthority(dst []byte, end int) []byte {
	if end < len(dst) && dst[end] != '/' && dst[end] != '?' && dst[end] != '#' {
		dst = slices.Insert(dst, end, '/')
	}
	return dst
}

// guardRelative keeps a Location written without a host (starting at
// mark) without one: browsers read "//evil.net" and "/\\evil.net" as
// another host, and "https:..." taken whole from a capture as a URL. The
// extra slashes go; a scheme gets a '/' before it, which makes it a path.
func guardRelative(dst []byte, mark int) []byte {
	loc := dst[mark:]
	switch {
	case len(loc) >= 2 && loc[0] == '/' && (loc[1] == '/' || loc[1] == '\\'):
		n := 1
		for n < len(loc) && (loc[n] == '/' || loc[n] == '\\') {
			n++
		}
		return append(dst[:mark+1], loc[n:]...)
	case len(loc) > 0 && loc[0] == '\\', schemeEnd(unsafeString(loc)) > 0:
		return guardRelative(slices.Insert(dst, mark, '/'), mark)
	}
	return dst
}

// appendQuery adds the request's query to the Location at dst[mark:]:
// after '&' when To holds a query already (hasQuery), after '?' when not,
// and before the Location's fragment (RFC 3986 4.2 order: "/b#frag" and
// "x=1" are "/b?x=1#frag"; after the '#' the query would never be sent).
// A '#' in the Location is always its fragment's: text from the request
// is never appended with a raw '#' in it.
func appendQuery(dst []byte, mark int, query []byte, hasQuery bool) []byte {
	sep := byte('?')
	if hasQuery {
		sep = '&'
	}
	frag := bytes.IndexByte(dst[mark:], '#')
	if frag < 0 {
		return append(append(dst, sep), query...)
	}
	at, n := mark+frag, 1+len(query)
	dst = slices.Grow(dst, n)
	dst = dst[:len(dst)+n]
	copy(dst[at+n:], dst[at:len(dst)-n])
	dst[at] = sep
	copy(dst[at+1:], query)
	return dst
}

// unsafeString views b as a string without copying, for read-only checks.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
