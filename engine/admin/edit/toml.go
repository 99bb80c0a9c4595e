package edit

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/matcher"
)

// An entry's conditions are shown and edited as the console's entry
// form takes them: TOML, a key of when a line, the query last. This is
// the one writer of that text, for an entry's conditions as given
// (ConditionsTOML) and for a serving rule's (RuleConditionsTOML), each
// value written by matcher's own TOML form of its condition or by
// tomlValue.

// ConditionsTOML writes an entry's query and when conditions as the
// entry form's conditions field takes them, "" for none.
func ConditionsTOML(q map[string]string, when map[string]any) string {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(when)) {
		lines = append(lines, tomlKey(k)+" = "+tomlValue(when[k]))
	}
	if len(q) > 0 {
		t := make(map[string]any, len(q))
		for k, v := range q {
			t[k] = v
		}
		lines = append(lines, "query = "+tomlValue(t))
	}
	return strings.Join(lines, "\n")
}

// RuleConditionsTOML writes r's query and when conditions as
// ConditionsTOML writes an entry's that names r, "" for none.
func RuleConditionsTOML(r *matcher.Rule) string {
	if len(r.Query) == 0 && r.When.Empty() {
		return ""
	}
	f := matcher.TOMLForm{Quote: tomlString, Key: tomlKey}
	var lines []string
	if !r.When.Empty() {
		lines = r.When.TOMLParts(f)
		if u := r.When.Unless; !u.Empty() {
			lines = append(lines, "unless = { "+strings.Join(u.TOMLParts(f), ", ")+" }")
		}
	}
	if len(r.Query) > 0 {
		// The query's TOML form is when.unless.query's, written by it.
		lines = append(lines, (&matcher.When{Query: r.Query}).TOMLParts(f)...)
	}
	return strings.Join(lines, "\n")
}

// tomlValue writes a decoded TOML or JSON value (a string, number,
// list or table) as TOML, tables inline.
func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return tomlString(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, y := range x {
			parts[i] = tomlValue(y)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, tomlKey(k)+" = "+tomlValue(x[k]))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return tomlString(fmt.Sprint(v))
}

// tomlKey writes a key bare when TOML allows it, else quoted.
func tomlKey(k string) string {
	if k != "" && strings.Trim(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == "" {
		return k
	}
	return tomlString(k)
}

// tomlString writes s as a TOML basic string: quotes, backslashes and
// control characters escaped.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
