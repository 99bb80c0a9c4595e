package nginx

import (
	"fmt"
	"strings"
)

// mapSources are the map sources the import translates, normalised by
// readSource; the $request_uri ones compare keys with the path and query
// as sent.
var mapSources = map[string]struct{ byHost, scheme, requestURI bool }{
	"uri":                        {},
	"request_uri":                {requestURI: true},
	"host":                       {},
	"host$uri":                   {byHost: true},
	"host$request_uri":           {byHost: true, requestURI: true},
	"scheme://$host$uri":         {byHost: true, scheme: true},
	"scheme://$host$request_uri": {byHost: true, scheme: true, requestURI: true},
}

// readSource reads a map's source ("$host$request_uri", "${host}${uri}")
// and marks the map bad when the import has no translation for it.
func (mp *nmap) readSource(arg string) {
	parts, err := parseTarget(arg)
	if err != nil {
		mp.bad = true
		return
	}
	var b strings.Builder
	for _, p := range parts {
		if p.kind == partLit {
			b.WriteString(p.text)
		} else {
			b.WriteString("$" + strings.Replace(p.text, "document_uri", "uri", 1))
		}
	}
	mp.source, mp.src = strings.TrimPrefix(b.String(), "$"), parts
	k, ok := mapSources[mp.source]
	mp.bad = !ok
	mp.byHost, mp.scheme, mp.requestURI = k.byHost, k.scheme, k.requestURI
}

// splitHostKey splits an exact key of a map on a host and a URI
// ("example.com/a", "http://example.com/a?b") into the host and the path.
func splitHostKey(key string, scheme bool) (host, path string, err error) {
	if scheme {
		rest, ok := strings.CutPrefix(key, "http://")
		if !ok {
			if strings.HasPrefix(key, "https://") {
				return "", "", fmt.Errorf("an https:// key never matches: redirectd sees plain HTTP requests, whose $scheme is http")
			}
			return "", "", fmt.Errorf("the key does not start with http://, so it never matches")
		}
		key = rest
	}
	i := strings.IndexByte(key, '/')
	if i <= 0 {
		return "", "", fmt.Errorf("the key is not a host followed by a path")
	}
	return key[:i], key[i:], nil
}

// splitHostRegex splits a regex key of a map on a host and a URI into a
// literal host and a regex on the path: ^example\.com/a(.*)$ becomes the
// host example.com and ^/a(.*)$. The host must be literal (an unescaped
// dot in it is read as the dot it stands for in practice); a scheme part
// may be http:// or https?://. Anything else cannot be a redirectd host.
func splitHostRegex(src string, scheme, ci bool) (host, rest string, err error) {
	s, ok := strings.CutPrefix(src, "^")
	if !ok {
		return "", "", fmt.Errorf("a regex key on a host must start with ^ and a literal host to be translated")
	}
	if scheme {
		switch {
		case strings.HasPrefix(s, "http://"), strings.HasPrefix(s, `http:\/\/`):
			s = s[strings.Index(s, "//")+2:]
		case strings.HasPrefix(s, "https?://"), strings.HasPrefix(s, `https?:\/\/`):
			s = s[strings.LastIndex(s[:12], "/")+1:]
		case strings.HasPrefix(s, "https://"), strings.HasPrefix(s, `https:\/\/`):
			return "", "", fmt.Errorf("an https:// key never matches: redirectd sees plain HTTP requests, whose $scheme is http")
		default:
			return "", "", fmt.Errorf("the scheme part is not http:// or https?://")
		}
	}
	var h strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '/' || c == '\\' && i+1 < len(s) && s[i+1] == '/':
			if h.Len() == 0 {
				return "", "", fmt.Errorf("the host part is empty")
			}
			host = h.String()
			if ci {
				host = strings.ToLower(host)
			}
			if c == '\\' {
				i++
			}
			return host, "^" + s[i:], nil
		case c == '\\' && i+1 < len(s) && (s[i+1] == '.' || s[i+1] == '-'):
			h.WriteByte(s[i+1])
			i++
		case c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			h.WriteByte(c)
		default:
			return "", "", fmt.Errorf("the host part of %s is not a literal host name (redirectd's hosts are names and *.wildcards)", src)
		}
	}
	return "", "", fmt.Errorf("the key has no path part")
}
