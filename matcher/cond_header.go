package matcher

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// The when.header condition: each field named must be in the request
// with the value given exactly (names without case, values with it,
// surrounding blanks cut), or with any value when the value is AnyValue
// ("*"). Each field is one condition (in an unless, any one of them
// holding refuses the rule). Answers carry Vary on the fields named.
var headerType = condType{key: "header", inWhen: true, inUnless: true,
	has:   func(w *When) bool { return len(w.Header) > 0 },
	count: checksOf[*headerCond],
	words: func(w *When) []string { return pairWords(w.Header) },
	toml:  func(w *When, f TOMLForm) string { return tomlTable(w.Header, f) },
	unit:  headerUnit{},
}

type headerUnit struct{}

// headerCond is a compiled field of when.header: its name in lower case.
type headerCond struct{ name, value []byte }

func (headerUnit) parse(w *When, v any, kind func(any) string) error {
	kvs, err := condPairs(v, kind)
	w.Header = append(w.Header, kvs...)
	return err
}

// condPairs reads a when.header or when.cookie table of names to the
// value each must have, by name; a bad entry is named in the error and
// left out, the others kept.
func condPairs(v any, kind func(any) string) ([]KeyValue, error) {
	t, ok := v.(map[string]any)
	if !ok || len(t) == 0 {
		return nil, fmt.Errorf("must be a non-empty table of names to values, such as { X-Device = \"mobile\" }, not %s", kind(v))
	}
	var out []KeyValue
	var err error
	for _, name := range slices.Sorted(maps.Keys(t)) {
		s, ok := t[name].(string)
		switch {
		case !ok:
			err = fmt.Errorf("%q must be a string, not %s", name, kind(t[name]))
		case !ascii.IsToken(name):
			err = fmt.Errorf("%q is not a valid name: use letters, digits and !#$%%&'*+-.^_`|~", name)
		default:
			out = append(out, KeyValue{Name: name, Value: s})
		}
	}
	return out, err
}

func (headerUnit) compile(w *When, field string, key *strings.Builder) ([]condCheck, error) {
	var checks []condCheck
	for _, h := range w.Header {
		if !ascii.IsToken(h.Name) {
			return nil, fieldErr(field+".header", "%q is not a header field name", h.Name)
		}
		name := strings.ToLower(h.Name)
		checks = append(checks, &headerCond{[]byte(name), []byte(h.Value)})
		key.WriteString("h" + name + "\x00" + h.Value + "\x00")
	}
	return checks, nil
}

func (c *headerCond) holds(m *Match) bool {
	v := m.Req.Header(c.name)
	return v != nil && (isAny(c.value) || bytes.Equal(bytes.TrimSpace(v), c.value))
}

func isAny(v []byte) bool { return len(v) == 1 && v[0] == AnyValue[0] }

func (headerUnit) text(w *When) []string { return pairTexts("header", w.Header) }

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

// pairTexts writes each of kvs as pairText does.
func pairTexts(what string, kvs []KeyValue) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = pairText(what, kv.Name, kv.Value)
	}
	return out
}
