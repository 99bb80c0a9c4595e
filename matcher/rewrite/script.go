package rewrite

import (
	"fmt"
	"strings"
)

// varKind names what a script part stands for.
type varKind uint8

// The parts of a script: literal text, the request's variables, a
// regex capture ($1..$9), and a variable of set or a named capture.
const (
	vLiteral varKind = iota
	vHost
	vHTTPHost
	vURI
	vRequestURI
	vArgs
	vIsArgs
	vScheme
	vMethod
	vPort
	vArg    // $arg_NAME
	vHTTP   // $http_NAME
	vCookie // $cookie_NAME
	vUser   // a variable of set, or a named capture
	vCapture
	vMap // a map's variable: its slot, evaluated when first read
)

// builtins are the request's variables by name.
var builtins = map[string]varKind{
	"host": vHost, "http_host": vHTTPHost, "uri": vURI, "document_uri": vURI,
	"request_uri": vRequestURI, "args": vArgs, "query_string": vArgs, "is_args": vIsArgs,
	"scheme": vScheme, "request_method": vMethod, "server_port": vPort,
}

// part is one piece of a script.
type part struct {
	kind varKind
	// escLit: lit holds a byte that a Location cannot carry (a literal
	// part of a redirect is then escaped as it is written).
	escLit bool
	// xfp: a vHTTP part reading X-Forwarded-Proto (ForwardedProtoRead).
	xfp bool
	lit string
	// name is the argument, field or cookie name of vArg, vHTTP and
	// vCookie (a field's '_' turned to '-', as nginx matches it).
	name []byte
	// n is the capture number of vCapture, the slot of vUser and vMap.
	n int
	// m is the map of vMap, its index in Program.maps.
	m int
}

// script is a value with variables, as nginx's complex values.
type script struct {
	parts []part
}

// compileScript splits src into literal text and variables, resolving
// each variable's name through c.
func (c *compiler) compileScript(src string, line int) (script, error) {
	var s script
	lit := 0
	for i := 0; i < len(src); i++ {
		if src[i] != '$' {
			continue
		}
		if i > lit {
			s.parts = append(s.parts, literalPart(src[lit:i]))
		}
		name, n, err := varName(src[i+1:])
		if err != nil {
			return s, err
		}
		p, err := c.variable(name, line)
		if err != nil {
			return s, err
		}
		s.parts = append(s.parts, p)
		i += n
		lit = i + 1
	}
	if lit < len(src) {
		s.parts = append(s.parts, literalPart(src[lit:]))
	}
	return s, nil
}

// literalPart is a script's literal text.
func literalPart(lit string) part {
	return part{kind: vLiteral, lit: lit, escLit: locationUnsafe(lit) < len(lit)}
}

// varName reads the name after a '$': "{name}", one digit (a capture),
// or letters, digits and '_'. n is the bytes it took.
func varName(s string) (name string, n int, err error) {
	if s != "" && s[0] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 2 {
			return "", 0, fmt.Errorf("invalid variable name in %q", "$"+s)
		}
		return s[1:end], end + 1, nil
	}
	if s != "" && s[0] >= '1' && s[0] <= '9' {
		return s[:1], 1, nil
	}
	for n < len(s) && isNameByte(s[n]) {
		n++
	}
	if n == 0 {
		return "", 0, fmt.Errorf("invalid variable name after '$' in %q", "$"+s)
	}
	return s[:n], n, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// variable resolves one variable name.
func (c *compiler) variable(name string, line int) (part, error) {
	if len(name) == 1 && name[0] >= '1' && name[0] <= '9' {
		return part{kind: vCapture, n: int(name[0] - '0')}, nil
	}
	lower := strings.ToLower(name)
	if k, ok := builtins[lower]; ok {
		return part{kind: k}, nil
	}
	for _, pre := range []struct {
		prefix string
		kind   varKind
	}{{"arg_", vArg}, {"http_", vHTTP}, {"cookie_", vCookie}} {
		if rest, ok := strings.CutPrefix(lower, pre.prefix); ok && rest != "" {
			if pre.kind == vHTTP {
				rest = strings.ReplaceAll(rest, "_", "-")
			}
			return part{kind: pre.kind, name: []byte(rest), xfp: pre.kind == vHTTP && rest == "x-forwarded-proto"}, nil
		}
	}
	if m, ok := c.maps[lower]; ok {
		return part{kind: vMap, n: c.slot(name, line), m: m}, nil
	}
	return part{kind: vUser, n: c.slot(name, line)}, nil
}
