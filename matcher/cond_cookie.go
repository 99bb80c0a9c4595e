package matcher

import (
	"bytes"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// The when.cookie condition: each cookie named must be among the
// request's cookies (the first of that name, as CookieValue finds it)
// with the value given exactly, or with any value for AnyValue ("*").
// Each cookie is one condition. Answers carry Vary: Cookie. Rules on one
// path told apart by one cookie each are filed by it (alts.go).
var cookieType = condType{key: "cookie", inWhen: true, inUnless: true,
	has:   func(w *When) bool { return len(w.Cookie) > 0 },
	count: checksOf[*cookieCond],
	words: func(w *When) []string { return pairWords(w.Cookie) },
	toml:  func(w *When, f TOMLForm) string { return tomlTable(w.Cookie, f) },
	unit:  cookieUnit{},
}

type cookieUnit struct{}

// cookieCond is a compiled cookie of when.cookie.
type cookieCond struct{ kv KeyValue }

func (cookieUnit) parse(w *When, v any, kind func(any) string) error {
	kvs, err := condPairs(v, kind)
	w.Cookie = append(w.Cookie, kvs...)
	return err
}

func (cookieUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	var checks []condCheck
	for _, k := range w.Cookie {
		if !ascii.IsToken(k.Name) {
			return nil, fieldErr(field+".cookie", "%q is not a cookie name", k.Name)
		}
		checks = append(checks, &cookieCond{k})
		key.WriteString("k" + k.Name + "\x00" + k.Value + "\x00")
	}
	return checks, nil
}

func (c *cookieCond) holds(m *Match) bool {
	v, ok := m.cookieParams().first(c.kv.Name)
	return ok && (c.kv.Value == AnyValue || string(v) == c.kv.Value)
}

func (cookieUnit) text(w *When) []string { return pairTexts("cookie", w.Cookie) }

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
// value ("a=1; b=2"), without surrounding quotes.
func CookieValue(cookies, name []byte) ([]byte, bool) {
	for len(cookies) > 0 {
		pair := cookies
		if i := bytes.IndexByte(cookies, ';'); i >= 0 {
			pair, cookies = cookies[:i], cookies[i+1:]
		} else {
			cookies = nil
		}
		pair = bytes.Trim(pair, " \t")
		i := bytes.IndexByte(pair, '=')
		if i < 0 || !bytes.Equal(pair[:i], name) {
			continue
		}
		v := pair[i+1:]
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		return v, true
	}
	return nil, false
}
