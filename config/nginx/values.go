package nginx

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// lowerASCII lower-cases the ASCII letters of s and nothing else, as
// nginx's map does with its keys and the value it looks up
// (ngx_hash_strlow): "/CAFÉ" is "/cafÉ", not "/café".
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; ascii.Lower(c) != c {
			b := append(make([]byte, 0, len(s)), s[:i]...)
			return string(ascii.AppendLower(b, s[i:]))
		}
	}
	return s
}

// exactKey is the key nginx's map stores for a string key as written:
// one leading backslash dropped (the escape for keys named like the map's
// parameters, "\default"), ASCII letters lower-cased. A trailing dot goes
// only in a hostnames map, whose looked-up host loses its own; a path
// key "/a." keeps it.
func exactKey(name string, hostnames bool) string {
	if hostnames {
		name = strings.TrimSuffix(name, ".")
	}
	name = strings.TrimPrefix(name, `\`)
	return lowerASCII(name)
}

// slashTypo repairs "https:/host/x" and "http:/host/x", a missing slash
// that nginx sends as written and browsers read as "https://host/x" (the
// URL standard skips any number of slashes after a special scheme). It
// reports false for anything else.
func slashTypo(to string) (string, bool) {
	for _, scheme := range []string{"https:/", "http:/"} {
		if len(to) > len(scheme) && strings.EqualFold(to[:len(scheme)], scheme) && to[len(scheme)] != '/' && to[len(scheme)] != '$' {
			return to[:len(scheme)] + "/" + to[len(scheme):], true
		}
	}
	return "", false
}

// clientSends reports whether a client can send path (and query) as
// they are: a browser percent-encodes a space, a control byte, '"', '<',
// '>', '`', '{', '}' and any byte past ASCII (the URL standard's path
// percent-encode set), reads '\' as '/', and never sends '#'. A request
// holding one of them raw is one no client makes, so the self-check does
// not ask about it.
func clientSends(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case !ascii.IsVisible(c):
			return false
		case strings.IndexByte("\"<>`{}\\#", c) >= 0:
			return false
		}
	}
	return true
}

// locationEscapes are the bytes nginx sends raw in a Location and a
// client percent-encodes when it follows it; redirectd refuses them in a
// Location, so the import writes them encoded, and the self-check reads
// nginx's Location the same way.
var locationEscapes = strings.NewReplacer(" ", "%20", `\`, "%5C", `"`, "%22", "<", "%3C", ">", "%3E")

// clientPath writes a path as a client sends it: the bytes of the URL
// standard's path percent-encode set (controls, space, '"', '#', '<',
// '>', '?', '`', '{', '}'), '%' and every byte past ASCII as %XX. A key
// of a map on $uri is compared with the decoded path (nginx's $uri), and
// redirectd compares a map's keys with the path as sent, where only
// unreserved escapes are decoded: "/café" is reached as "/caf%C3%A9",
// and "/a%20b", which only "/a%2520b" reaches in nginx, as "/a%2520b".
func clientPath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !ascii.IsVisible(c) || strings.IndexByte("\"#<>?`{}%", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
