package matcher

import (
	"fmt"
	"strings"
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
)

// specialVars are the variables a regex rule's To may use besides its
// groups; a group of the same name wins.
var specialVars = map[string]int{"host": partHost, "path": partPath, "query": partQuery}

// parseTemplate splits to at $N, ${N} and ${name} references, which only
// regex rules have (names and numbers index into names as
// regexp.SubexpNames does); "$$" is a literal '$'. Exact and prefix rules
// pass names == nil and get to as one literal part, '$' included.
//
// Unlike regexp.Expand, a reference to a group the regex does not have is an
// error: it would otherwise expand to nothing and hide a typo.
func parseTemplate(to string, names []string, mode QueryMode) (template, error) {
	if i := strings.IndexByte(to, '?'); i >= 0 && mode == QueryDrop {
		to = to[:i]
	}
	t := template{hasQuery: strings.IndexByte(to, '?') >= 0, keepQuery: mode == QueryKeep}
	if names == nil || strings.IndexByte(to, '$') < 0 {
		t.parts = []templatePart{{lit: to, group: partLiteral}}
		return t, nil
	}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, templatePart{lit: lit.String(), group: partLiteral})
			lit.Reset()
		}
	}
	for i := 0; i < len(to); i++ {
		c := to[i]
		if c != '$' {
			lit.WriteByte(c)
			continue
		}
		if i+1 < len(to) && to[i+1] == '$' {
			lit.WriteByte('$')
			i++
			continue
		}
		name, n, err := templateRef(to[i+1:])
		if err != nil {
			return t, err
		}
		g := groupIndex(name, names)
		if g < 0 {
			if v, ok := specialVars[name]; ok {
				g = v
			} else {
				return t, fmt.Errorf("%q refers to group %q, which the regex does not have (it has %d; $host, $path and $query are also known)", to, name, len(names)-1)
			}
		}
		flush()
		t.parts = append(t.parts, templatePart{group: g})
		i += n
	}
	flush()
	return t, nil
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
// its groups filled from caps over path (and $host, $path, $query), then
// rest (the unmatched tail of a prefix rule), then the request's query
// when the rule keeps it.
func (t *template) appendLocation(dst, path []byte, caps []int, rest, host, query []byte) []byte {
	for i := range t.parts {
		p := &t.parts[i]
		switch p.group {
		case partLiteral:
			dst = append(dst, p.lit...)
		case partHost:
			dst = appendHost(dst, host)
		case partPath:
			dst = append(dst, path...)
		case partQuery:
			dst = append(dst, query...)
		default:
			if lo, hi := caps[2*p.group], caps[2*p.group+1]; lo >= 0 {
				dst = append(dst, path[lo:hi]...)
			}
		}
	}
	dst = append(dst, rest...)
	return appendQuery(dst, query, t.hasQuery, t.keepQuery)
}

// appendQuery appends the request's query to a Location when the rule
// keeps it, after '&' when the Location (hasQuery) already holds one.
func appendQuery(dst, query []byte, hasQuery, keep bool) []byte {
	if !keep || len(query) == 0 {
		return dst
	}
	if hasQuery {
		dst = append(dst, '&')
	} else {
		dst = append(dst, '?')
	}
	return append(dst, query...)
}
