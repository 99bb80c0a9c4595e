package matcher

import (
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
