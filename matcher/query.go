package matcher

import (
	"bytes"
	"slices"
	"strings"
)

// AnyValue as a QueryCond's Value asks only that the parameter be present.
const AnyValue = "*"

// QueryCond is one query condition of a rule: the request's query must hold
// a parameter Name with Value (or any value when Value is AnyValue). Names
// and values are compared with the request's after decoding its
// percent-escapes and '+', so "spring sale" matches spring+sale and
// spring%20sale; the comparison is case-sensitive, as servers read queries.
type QueryCond struct {
	Name, Value string
}

// sortConds sorts conditions by name, so that two rules with the same
// conditions in a different order compare equal.
func sortConds(c []QueryCond) {
	slices.SortFunc(c, func(a, b QueryCond) int { return strings.Compare(a.Name, b.Name) })
}

// condsKey is the canonical text of sorted conditions, for duplicate checks.
func condsKey(c []QueryCond) string {
	var b strings.Builder
	for _, q := range c {
		b.WriteString(q.Name)
		b.WriteByte(0)
		b.WriteString(q.Value)
		b.WriteByte(0)
	}
	return b.String()
}

// condsHold reports whether query (the request's, without '?') satisfies
// every condition.
func condsHold(conds []QueryCond, query []byte) bool {
	for i := range conds {
		if !condHolds(&conds[i], query) {
			return false
		}
	}
	return true
}

// condHolds scans the parameters of query for one that satisfies c. A
// parameter may appear more than once; any occurrence will do.
func condHolds(c *QueryCond, query []byte) bool {
	for len(query) > 0 {
		param := query
		if i := bytes.IndexByte(query, '&'); i >= 0 {
			param, query = query[:i], query[i+1:]
		} else {
			query = nil
		}
		name, value, hasValue := param, []byte(nil), false
		if i := bytes.IndexByte(param, '='); i >= 0 {
			name, value, hasValue = param[:i], param[i+1:], true
		}
		if !decodedEqual(name, c.Name) {
			continue
		}
		if c.Value == AnyValue {
			return true
		}
		if (hasValue || c.Value == "") && decodedEqual(value, c.Value) {
			return true
		}
	}
	return false
}

// decodedEqual reports whether raw, a query component with its
// percent-escapes and '+' decoded, equals want. A malformed escape is taken
// literally, as most servers do.
func decodedEqual(raw []byte, want string) bool {
	j := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '+':
			c = ' '
		case c == '%' && i+2 < len(raw) && unhexDigit(raw[i+1]) >= 0 && unhexDigit(raw[i+2]) >= 0:
			c = byte(unhexDigit(raw[i+1])<<4 | unhexDigit(raw[i+2]))
			i += 2
		}
		if j >= len(want) || want[j] != c {
			return false
		}
		j++
	}
	return j == len(want)
}
