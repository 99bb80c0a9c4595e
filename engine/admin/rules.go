package admin

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// rules answers with every rule as a JSON array, then the entries of the
// location phase (LocationLister), or with ?unused=1 only the
// rules with no hit since start: the ones a clean-up can look at. unused
// takes strconv.ParseBool's spellings (1, true, 0, false, ...); any other
// value is a 400 rather than a silent full list.
func (s *Server) rules(w http.ResponseWriter, r *http.Request) {
	unused := false
	if v := r.URL.Query().Get("unused"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			text(w, http.StatusBadRequest, fmt.Sprintf("cannot parse unused %q: want 1 or 0\n", cut(v)))
			return
		}
		unused = b
	}
	list := inScope(whoIs(r), s.b.Rules())
	if unused {
		list = unusedRules(list)
	} else if ll, ok := s.b.(LocationLister); ok {
		// The location phase's entries have no hit counts: listed in
		// full, never as unused.
		if locs := inScope(whoIs(r), ll.Locations()); len(locs) > 0 {
			list = append(list[:len(list):len(list)], locs...)
		}
	}
	if list == nil {
		list = []RuleInfo{} // "[]", never "null"
	}
	writeJSON(w, list)
}

// unusedRules returns the rules in list with no hits (live or shadow), in a new slice: list
// belongs to the Backend.
func unusedRules(list []RuleInfo) []RuleInfo {
	out := []RuleInfo{}
	for _, ri := range list {
		if ri.Hits == 0 && ri.ShadowHits == 0 {
			out = append(out, ri)
		}
	}
	return out
}

// inScope returns the rules of list that id may see (edit.InScope).
func inScope(id *edit.Identity, list []RuleInfo) []RuleInfo {
	return edit.InScope(id, list, func(ri *RuleInfo) string { return ri.Host })
}
