package config

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// rawRule is one [[rule]] table. Fields are decoded untyped and converted
// by hand, so that a wrong type is reported with its rule and line rather
// than as the decoder's position-less message; nil means absent.
type rawRule struct {
	Match  any `toml:"match"`
	From   any `toml:"from"`
	To     any `toml:"to"`
	Status any `toml:"status"`
	Host   any `toml:"host"`
}

// rawMap is one [[map]] table.
type rawMap struct {
	File   any `toml:"file"`
	Match  any `toml:"match"`
	Status any `toml:"status"`
	Host   any `toml:"host"`
}

// entry converts the fields of one [[rule]] or [[map]] table, recording an
// error that names the key and its line for each wrong one.
type entry struct {
	file  string
	table string
	index int
	loc   *locator
	errs  *errorList
	ok    bool
}

func (e *entry) fail(key, format string, args ...any) {
	e.ok = false
	e.errs.add(&Error{File: e.file, Line: e.loc.line(e.table, e.index, key), What: entryName(e.table, e.index), Key: key,
		Msg: fmt.Sprintf(format, args...)})
}

func (e *entry) str(key string, v any, required bool) string {
	if v == nil {
		if required {
			e.fail(key, "missing; every [[%s]] needs it", e.table)
		}
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		e.fail(key, "must be a string, not %s", tomlType(v))
	}
	return s
}

func (e *entry) status(v any) int {
	if v == nil {
		return DefaultStatus
	}
	n, isInt := v.(int64)
	if !isInt {
		e.fail("status", "must be an integer, not %s", tomlType(v))
		return 0
	}
	if !matcher.ValidStatus(int(n)) {
		e.fail("status", "%d is not a redirect status; use 301, 302, 303, 307 or 308", n)
	}
	return int(n)
}

func (e *entry) kind(v any) matcher.Kind {
	s := e.str("match", v, false)
	k, ok := matcher.ParseKind(s)
	if !ok {
		e.fail("match", "%q is not a match kind; use \"exact\", \"prefix\" or \"regex\"", s)
	}
	return k
}

func (e *entry) host(v any) string {
	h := e.str("host", v, false)
	if h != "" && strings.ContainsAny(h, "/:?#@ \t") {
		e.fail("host", "%q is not a host name; give the name alone, without scheme, port or path", h)
	}
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// tomlType names the TOML type of a decoded value for messages.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// convertRule turns the i-th [[rule]] table into a Rule. The rule's own
// checks (a regex that compiles, a To without control characters) are
// left to matcher.Compile, whose errors Load places on their key's line.
func convertRule(file string, i int, raw *rawRule, loc *locator, errs *errorList) (matcher.Rule, bool) {
	e := &entry{file: file, table: "rule", index: i, loc: loc, errs: errs, ok: true}
	r := matcher.Rule{
		Kind:   e.kind(raw.Match),
		Host:   e.host(raw.Host),
		From:   e.str("from", raw.From, true),
		To:     e.str("to", raw.To, true),
		Status: e.status(raw.Status),
		File:   file,
		Line:   loc.header("rule", i),
	}
	return r, e.ok
}
