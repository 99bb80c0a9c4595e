package matcher

import (
	"bytes"
	"strconv"
	"strings"
)

// The when.header condition: each field named must be in the request
// with the value given exactly (names without case, values with it,
// surrounding blanks cut), or with any value when the value is AnyValue
// ("*"). Each field is one condition (in an unless, any one of them
// holding refuses the rule). Answers carry Vary on the fields named.
var headerType = headerPairs.condType(checksOf[*headerCond], headerUnit{headerPairs})

var headerPairs = pairUnit{key: "header", tag: "h", noun: "header field name", form: strings.ToLower,
	list: func(w *When) *[]KeyValue { return &w.Header },
	cond: func(kv KeyValue) condCheck { return &headerCond{[]byte(kv.Name), []byte(kv.Value)} }}

type headerUnit struct{ pairUnit }

// headerCond is a compiled field of when.header: its name in lower case.
type headerCond struct{ name, value []byte }

func (c *headerCond) holds(m *Match) bool {
	v := m.Req.Header(c.name)
	return v != nil && (isAny(c.value) || bytes.Equal(bytes.TrimSpace(v), c.value))
}

func isAny(v []byte) bool { return len(v) == 1 && v[0] == AnyValue[0] }

func (headerUnit) got(w *When, i int, m *Match) string {
	if v := m.Req.Header([]byte(strings.ToLower(w.Header[i].Name))); v != nil {
		return "the request has " + strconv.Quote(string(v))
	}
	return "the request has none"
}

func (headerUnit) vary(w *When) []string {
	names := make([]string, len(w.Header))
	for i, h := range w.Header {
		names[i] = h.Name
	}
	return names
}
