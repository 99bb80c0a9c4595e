package matcher

import "bytes"

// The when.cookie condition: each cookie named must be among the
// request's cookies (the first of that name, as CookieValue finds it)
// with the value given exactly, or with any value for AnyValue ("*").
// Each cookie is one condition. Answers carry Vary: Cookie. Rules on one
// path told apart by one cookie each are filed by it (alts.go).
var cookieType = cookiePairs.condType(checksOf[*cookieCond], cookieUnit{cookiePairs})

var cookiePairs = pairUnit{key: "cookie", tag: "k", noun: "cookie name",
	list: func(w *When) *[]KeyValue { return &w.Cookie },
	cond: func(kv KeyValue) condCheck { return &cookieCond{kv} }}

type cookieUnit struct{ pairUnit }

// cookieCond is a compiled cookie of when.cookie.
type cookieCond struct{ kv KeyValue }

func (c *cookieCond) holds(m *Match) bool {
	v, ok := m.cookieParams().first(c.kv.Name)
	return ok && (c.kv.Value == AnyValue || string(v) == c.kv.Value)
}

func (cookieUnit) got(w *When, i int, m *Match) string {
	return paramGot("the request's cookies", m.cookieParams(), w.Cookie[i].Name)
}

func (cookieUnit) vary(*When) []string { return []string{"Cookie"} }

// cookiesOf returns the cookies c's when.cookie names, in order: what
// alts.go files a rule under.
func cookiesOf(c *when) []KeyValue {
	var out []KeyValue
	for _, k := range c.checks {
		if k, ok := k.(*cookieCond); ok {
			out = append(out, k.kv)
		}
	}
	return out
}

// CookieValue returns the value of the cookie named name in a Cookie field
// value ("a=1; b=2"), without surrounding quotes. It is the plain reading
// that the condition's own (params.setCookies, which reads every cookie
// once per request) is checked against, and no request path calls it.
func CookieValue(cookies, name []byte) ([]byte, bool) {
	for pair := range bytes.SplitSeq(cookies, []byte{';'}) {
		k, v, ok := bytes.Cut(bytes.Trim(pair, " \t"), []byte{'='})
		if !ok || !bytes.Equal(k, name) {
			continue
		}
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		return v, true
	}
	return nil, false
}
