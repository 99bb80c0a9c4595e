package accesslog

import (
	"sort"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// template is a layout of nginx log_format $variables, compiled once into
// ops so that a line is a walk over a slice with no lookups, parsing or
// allocation.
type template struct {
	src    string
	ops    []op
	json   bool     // escape=json: JSON string escapes, absent values empty
	fields []string // the $http_NAME names of Entry.Fields
}

// op is a literal (v == 0) or a variable; arg indexes Entry.Fields for
// vField.
type op struct {
	v   variable
	lit string
	arg int
}

type variable uint8

const (
	vLiteral variable = iota
	vRemoteAddr
	vRemoteUser
	vTimeLocal
	vTimeISO8601
	vMsec
	vHost
	vHTTPHost
	vRequest
	vRequestMethod
	vRequestURI
	vURI
	vArgs
	vIsArgs
	vServerProtocol
	vScheme
	vStatus
	vBodyBytesSent
	vBytesSent
	vRequestTime
	vUpstreamAddr
	vUpstreamStatus
	vUpstreamResponseTime
	vUserAgent
	vReferer
	vSentLocation
	vField
	vRule
	vShadowRule
)

// variables are the names a layout may use, as nginx spells them; each
// means what nginx's does (see the package doc for the few differences).
// rule and shadow_rule are redirectd's own.
var variables = map[string]variable{
	"remote_addr":            vRemoteAddr,
	"remote_user":            vRemoteUser,
	"time_local":             vTimeLocal,
	"time_iso8601":           vTimeISO8601,
	"msec":                   vMsec,
	"host":                   vHost,
	"http_host":              vHTTPHost,
	"request":                vRequest,
	"request_method":         vRequestMethod,
	"request_uri":            vRequestURI,
	"uri":                    vURI,
	"document_uri":           vURI,
	"args":                   vArgs,
	"query_string":           vArgs,
	"is_args":                vIsArgs,
	"server_protocol":        vServerProtocol,
	"scheme":                 vScheme,
	"status":                 vStatus,
	"body_bytes_sent":        vBodyBytesSent,
	"bytes_sent":             vBytesSent,
	"request_time":           vRequestTime,
	"upstream_addr":          vUpstreamAddr,
	"upstream_status":        vUpstreamStatus,
	"upstream_response_time": vUpstreamResponseTime,
	"http_user_agent":        vUserAgent,
	"http_referer":           vReferer,
	"sent_http_location":     vSentLocation,
	"rule":                   vRule,
	"shadow_rule":            vShadowRule,
}

// Variables returns the names a layout may use besides $http_NAME, sorted,
// for documentation and error messages.
func Variables() []string {
	names := make([]string, 0, len(variables)+1)
	for n := range variables {
		names = append(names, n)
	}
	names = append(names, "http_NAME")
	sort.Strings(names)
	return names
}

// compile parses a layout as nginx's log_format does: "$name" or
// "${name}", a name being letters, digits and '_'; everything else is
// copied.
func compile(src string, json bool) (*template, error) {
	t := &template{src: src, json: json}
	lit := 0 // start of the literal being collected
	for i := 0; i < len(src); {
		if src[i] != '$' {
			i++
			continue
		}
		start := i
		i++
		braced := i < len(src) && src[i] == '{'
		if braced {
			i++
		}
		n := i
		for i < len(src) && isNameByte(src[i]) {
			i++
		}
		name := src[n:i]
		if name == "" {
			return nil, &FormatError{Offset: start, Msg: `"$" is not followed by a variable name; write "$name" or "${name}"`}
		}
		if braced {
			if i >= len(src) || src[i] != '}' {
				return nil, &FormatError{Offset: start, Msg: `"${` + name + `" is missing its "}"`}
			}
			i++
		}
		o := op{v: variables[name]}
		if o.v == vLiteral {
			h, ok := strings.CutPrefix(name, "http_")
			if !ok || h == "" {
				return nil, &FormatError{Offset: start, Msg: "unknown variable $" + name + "; known: $" + strings.Join(Variables(), ", $")}
			}
			o.v, o.arg = vField, t.field(h)
		}
		if start > lit {
			t.ops = append(t.ops, op{lit: src[lit:start]})
		}
		t.ops = append(t.ops, o)
		lit = i
	}
	if lit < len(src) {
		t.ops = append(t.ops, op{lit: src[lit:]})
	}
	return t, nil
}

// field returns the index of the header field name (as in $http_NAME) in
// t.fields, adding it.
func (t *template) field(name string) int {
	name = strings.ToLower(name)
	for i, f := range t.fields {
		if f == name {
			return i
		}
	}
	t.fields = append(t.fields, name)
	return len(t.fields) - 1
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// FieldMatches reports whether a request header field's name is the
// $http_NAME name want (lower-case, '_' for '-'), as nginx matches them:
// ASCII case folded, '-' read as '_'.
func FieldMatches(name []byte, want string) bool {
	if len(name) != len(want) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == '-' {
			c = '_'
		}
		c = ascii.Lower(c)
		if c != want[i] {
			return false
		}
	}
	return true
}
