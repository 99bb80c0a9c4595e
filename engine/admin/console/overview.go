package console

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

type kindCount struct {
	Name  string
	Count int
}

type overviewData struct {
	Version *versionRow
	Kinds   []kindCount
	Total   int
	Scoped  bool
	Rates   []rate
	Window  float64
	Misses  []admin.MissInfo
	MissErr string
}

// topMisses is how many misses the overview lists.
const topMisses = 10

// overview shows the serving version, the rule counts by kind, the
// answers per second by outcome and the top misses, each of the user's
// hosts only when the token is scoped.
func (c *Console) overview(w http.ResponseWriter, r *http.Request, u *user) {
	d := overviewData{Scoped: u.who.Scoped()}
	if v, ok := c.b.(edit.Versioner); ok {
		for _, vi := range versionRows(v.Versions()) {
			if vi.Serving {
				d.Version = &vi
				break
			}
		}
	}
	x := c.rules.get(c.now())
	if u.who.Scoped() {
		kinds := map[string]int{}
		for _, sp := range x.spans(u.who, "") {
			for _, ri := range x.rules[sp.lo:sp.hi] {
				kinds[ri.Kind]++
			}
		}
		d.Kinds, d.Total = sortedKinds(kinds)
	} else {
		d.Kinds, d.Total = sortedKinds(x.kinds)
		d.Rates, d.Window = c.rates.sample(func(o *outcomeScanner) { c.b.WriteMetrics(o) }, c.now())
	}
	d.Misses, d.MissErr = c.missList(r.Context(), u, "", topMisses)
	c.render(w, http.StatusOK, "overview", "Overview", u, d)
}

func sortedKinds(m map[string]int) ([]kindCount, int) {
	var out []kindCount
	total := 0
	for k, n := range m {
		out = append(out, kindCount{k, n})
		total += n
	}
	slices.SortFunc(out, func(a, b kindCount) int { return strings.Compare(a.Name, b.Name) })
	return out, total
}

// missesTimeout bounds how long a page waits for the event loops'
// miss counters.
const missesTimeout = 5 * time.Second

// missList returns the top misses the user may see: of host when given
// (refused unless the token covers it), else every host, or each of a
// scoped token's hosts, merged by count. The string is why there are
// none, when that is worth saying.
func (c *Console) missList(ctx context.Context, u *user, host string, limit int) ([]admin.MissInfo, string) {
	mr, ok := c.b.(admin.MissReporter)
	if !ok {
		return nil, admin.ErrMissesOff.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, missesTimeout)
	defer cancel()
	list, err := admin.ScopedMisses(ctx, mr, &u.who, host, limit)
	if errors.Is(err, edit.ErrForbidden) {
		return nil, "your token does not cover host " + cut(host)
	}
	if err != nil {
		return nil, err.Error()
	}
	return list, ""
}
