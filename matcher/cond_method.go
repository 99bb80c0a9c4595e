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
var methodType = methodList.condType(checksOf[*methodCond], methodUnit{methodList})

var methodList = listUnit{key: "method", tag: "m", check: checkMethod,
	list: func(w *When) *[]string { return &w.Method },
	cond: func(methods []string) condCheck { return &methodCond{methods} }}

type methodUnit struct{ listUnit }

// methodCond is a compiled when.method.
type methodCond struct{ methods []string }

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

func (methodUnit) vary(*When) []string { return nil }

func (methodUnit) got(_ *When, _ int, m *Match) string {
	if cr, ok := m.Req.(ClientRequest); ok {
		return "the request is " + string(cr.Method())
	}
	return "the request's method is unknown"
}
