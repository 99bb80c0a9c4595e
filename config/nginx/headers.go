package nginx

import (
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// addHeader is one add_header directive.
type addHeader struct {
	name, value string
	// always: nginx adds it to every answer, not only to 2xx and 3xx.
	always bool
}

// readAddHeader reads `add_header NAME VALUE [always];`, noting and
// leaving out what redirectd cannot send: a value with variables, a field
// the server writes itself.
func (m *model) readAddHeader(d *Directive) (addHeader, bool) {
	if len(d.Args) < 2 || len(d.Args) > 3 || len(d.Args) == 3 && d.Args[2] != "always" {
		m.note(d, "add_header takes a name, a value and an optional \"always\"; left out")
		return addHeader{}, false
	}
	h := addHeader{name: d.Args[0], value: d.Args[1], always: len(d.Args) == 3}
	if strings.Contains(h.name+h.value, "$") {
		m.note(d, "add_header %s: variables are set per request, which redirectd's headers are not; left out", h.name)
		return addHeader{}, false
	}
	if err := matcher.CheckHeader(h.name, h.value); err != nil {
		msg := err.Error()
		if fe, ok := err.(*matcher.FieldError); ok {
			msg = fe.Msg
		}
		m.note(d, "add_header %s: %s; left out", h.name, msg)
		return addHeader{}, false
	}
	return h, true
}

// headersFor returns the headers nginx adds to a status answered in l (nil
// for a server-level directive) of s: the location's add_header
// directives when it has any, else the server's (nginx inherits them only
// into a location with none of its own), and of those, for a status that
// is not 2xx or 3xx, only the ones marked always.
func headersFor(s *server, l *location, status int) []matcher.Header {
	list := s.headers
	// A location without add_header inherits the nearest enclosing one's.
	for x := l; x != nil; x = x.parent {
		if x.hasHeaders {
			list = x.headers
			break
		}
	}
	var out []matcher.Header
	for _, h := range list {
		if !h.always && !matcher.HasLocation(status) {
			continue // nginx adds it to 200, 201, 204, 206, 301, 302, 303, 304, 307 and 308 only
		}
		dup := false
		for i := range out {
			if strings.EqualFold(out[i].Name, h.name) {
				out[i].Value += ", " + h.value // one field of a list (RFC 9110 5.3)
				dup = true
			}
		}
		if !dup {
			out = append(out, matcher.Header{Name: h.name, Value: h.value})
		}
	}
	return out
}

// headersKey is hs in one string, to tell rules that can share a map.
func headersKey(hs []matcher.Header) string {
	var b strings.Builder
	for _, h := range hs {
		b.WriteString(h.Name + "\x00" + h.Value + "\x00")
	}
	return b.String()
}
