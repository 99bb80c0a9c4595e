package matcher

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// The when.method condition: the request's method is one of those
// listed, compared exactly (methods are case-sensitive, RFC 9110 section
// 9.1), so "GET" does not take HEAD: list both for a redirect that a
// HEAD check should see. No Vary: caches key by method already.
var methodType = condType{key: "method", inWhen: true, inUnless: true,
	has:   func(w *When) bool { return len(w.Method) > 0 },
	count: checksOf[*methodCond],
	toml:  func(w *When, f TOMLForm) string { return tomlList(w.Method, f) },
	unit:  methodUnit{},
}

type methodUnit struct{}

// methodCond is a compiled when.method.
type methodCond struct{ methods []string }

func (methodUnit) parse(w *When, v any, kind func(any) string) error {
	list, err := condStrings(v, kind)
	if err != nil {
		return err
	}
	for _, s := range list {
		if err := checkMethod(s); err != nil {
			return err
		}
	}
	w.Method = append(w.Method, list...)
	return nil
}

// checkMethod refuses what no client can send as a method, and a method
// in lower case, which is another method than the one meant.
func checkMethod(s string) error {
	if !ascii.IsToken(s) {
		return fmt.Errorf("%q is not a method; write one such as \"GET\" or \"POST\"", s)
	}
	if u := strings.ToUpper(s); u != s {
		return fmt.Errorf("%q is not %q: methods are case-sensitive and clients send them in capitals", s, u)
	}
	return nil
}

func (methodUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	if len(w.Method) == 0 {
		return nil, nil
	}
	c := &methodCond{}
	for _, s := range w.Method {
		if err := checkMethod(s); err != nil {
			return nil, fieldErr(field+".method", "%v", err)
		}
		c.methods = append(c.methods, s)
		key.WriteString("m" + s + "\x00")
	}
	return []condCheck{c}, nil
}

func (c *methodCond) holds(m *Match) bool {
	cr, ok := m.Req.(ClientRequest)
	if !ok {
		return false
	}
	got := cr.Method()
	for _, s := range c.methods {
		if string(got) == s {
			return true
		}
	}
	return false
}

func (methodUnit) text(w *When) []string {
	return []string{"method = " + strings.Join(w.Method, ", ")}
}

func (methodUnit) vary(*When) []string { return nil }

func (methodUnit) got(_ *When, _ int, m *Match) string {
	if cr, ok := m.Req.(ClientRequest); ok {
		return "the request is " + string(cr.Method())
	}
	return "the request's method is unknown"
}
