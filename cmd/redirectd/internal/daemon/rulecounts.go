package daemon

import (
	"fmt"

	"github.com/redirectd/redirectd/internal/plural"
	"github.com/redirectd/redirectd/matcher"
)

// RuleCounts says how many rules a config holds as written, "10 rules (6
// exact, 0 prefix, 4 regex)": each [[rule]] table, map entry and CSV row
// once, as the imports count what they write. A rule listed for several
// hosts is one rule per host to the matcher; when that makes a
// difference, the count per host follows: "; 22 counted once per host".
func RuleCounts(written, perHost matcher.Counts) string {
	total := func(c matcher.Counts) int { return c.Exact + c.Prefix + c.Regex }
	s := fmt.Sprintf("%s (%d exact, %d prefix, %d regex", plural.Count(total(written), "rule"), written.Exact, written.Prefix, written.Regex)
	if n := total(perHost); n != total(written) {
		s += fmt.Sprintf("; %d counted once per host", n)
	}
	return s + ")"
}
