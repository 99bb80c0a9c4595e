package config

import (
	"errors"

	"github.com/redirectd/redirectd/matcher"
)

// headers reads a headers table: field names to values, checked as
// matcher.CheckHeader checks them, in name order (a TOML table has none).
func (e *entry) headers(v any) []matcher.Header {
	t := e.subTable("headers", v, "a table of field names to values, such as { Cache-Control = \"max-age=3600\" }", "leave headers out for none")
	if t == nil {
		return nil
	}
	hs := make([]matcher.Header, 0, len(t))
	for name, val := range t {
		s, ok := val.(string)
		if !ok {
			e.fail("headers", "the value of %q must be a string, not %s", name, tomlType(val))
			continue
		}
		if err := matcher.CheckHeader(name, s); err != nil {
			var fe *matcher.FieldError
			if errors.As(err, &fe) {
				e.fail("headers", "%s", fe.Msg)
			} else {
				e.fail("headers", "%v", err)
			}
			continue
		}
		hs = append(hs, matcher.Header{Name: name, Value: s})
	}
	matcher.SortHeaders(hs)
	return hs
}

// ownHeaders reads a rule's, map's or CSV's headers and merges the
// server's into them: a field of the rule replaces the server's of the
// same name, the others are added. A rule without headers gets none of
// its own, and its answers carry the server's (matcher.Set.Headers).
func (e *entry) ownHeaders(v any, d *Defaults) []matcher.Header {
	own := e.headers(v)
	if len(own) == 0 {
		return nil
	}
	return matcher.MergeHeaders(own, d.Headers)
}

// serverHeaders reads [server] headers.
func serverHeaders(file string, sv *Server, loc *locator, errs *errorList) []matcher.Header {
	e := &entry{file: file, table: "server", loc: loc, errs: errs, ok: true}
	return e.headers(sv.Headers)
}
