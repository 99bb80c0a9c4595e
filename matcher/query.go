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

// pairsKey is names and values (sorted query conditions, response
// headers) as one string, each ended by a NUL: for duplicate checks and
// Same, two lists are the same when their keys are.
func pairsKey[T ~struct{ Name, Value string }](ps []T) string {
	var b strings.Builder
	for _, p := range ps {
		nv := struct{ Name, Value string }(p)
		b.WriteString(nv.Name)
		b.WriteByte(0)
		b.WriteString(nv.Value)
		b.WriteByte(0)
	}
	return b.String()
}
