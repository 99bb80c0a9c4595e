// Package plural writes a count with its noun in the right number, for
// every message that counts something: "1 rule", "0 rules", "1 entry",
// "2 entries". It is the one such helper, so that no message says
// "1 entries".
package plural

import "strconv"

// Count returns n followed by the noun: one when n is 1, else its plural,
// which is many when given and one+"s" otherwise. Count(1, "entry",
// "entries") is "1 entry"; Count(2, "rule") is "2 rules".
func Count(n int, one string, many ...string) string {
	noun := one
	if n != 1 {
		if len(many) > 0 {
			noun = many[0]
		} else {
			noun = one + "s"
		}
	}
	return strconv.Itoa(n) + " " + noun
}
