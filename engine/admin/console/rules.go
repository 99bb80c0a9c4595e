package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

// pageSize is the rules shown per page.
const pageSize = 50

type rulesData struct {
	Q, Host    string
	Rows       []admin.RuleInfo
	Total      int
	Capped     bool
	Scoped     bool
	Page       int
	Prev, Next string
	Built      time.Time
	Took       string
	// Locations are the location phase's server steps and locations
	// (admin.LocationLister) that the search and host keep, in file
	// order.
	Locations []admin.RuleInfo
	// CanEdit: the user may edit and the rules are edited here, so
	// each rule has an Edit link.
	CanEdit bool
	// History: a hit history is kept, so each rule's hits link to it.
	History bool
}

// HitsLink is the hit history page of r.
func (rulesData) HitsLink(r admin.RuleInfo) string {
	return "/ui/rules/hits?" + url.Values{"host": {r.Host}, "from": {r.From}}.Encode()
}

// EditLink is the edit page of r, its entry form filled in, its
// conditions too.
func (rulesData) EditLink(r admin.RuleInfo) string {
	v := url.Values{"op": {"change"}, "host": {r.Host}, "from": {r.From}, "to": {r.To}, "kind": {r.Kind}, "status": {strconv.Itoa(r.Status)}}
	if r.ConditionsTOML != "" {
		// Named by its conditions: the edit is of this rule, not of
		// every rule of its path.
		v.Set("conditions", r.ConditionsTOML)
	}
	return "/ui/rules/edit?" + v.Encode()
}

// rulesPage searches the rules: ?q= (host, path or target contains,
// any case), ?host= (exactly this host), ?page= (from 1).
func (c *Console) rulesPage(w http.ResponseWriter, r *http.Request, u *user) {
	q := r.URL.Query()
	d := rulesData{Q: q.Get("q"), Host: q.Get("host"), Scoped: u.who.Scoped(), Page: 1, CanEdit: u.who.Role >= edit.RoleEditor, History: c.hist != nil}
	if _, ok := c.b.(edit.Editor); !ok {
		d.CanEdit = false
	}
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 1 {
		d.Page = min(p, 1<<24) // (page-1)*pageSize cannot overflow
	}
	if d.Host != "" && !u.who.Allows(d.Host) {
		c.fail(w, r, u, http.StatusForbidden, "your token does not cover host "+strconv.Quote(cut(d.Host)))
		return
	}
	start := time.Now()
	x := c.rules.get(c.now())
	rows, total, capped := x.search(x.spans(u.who, d.Host), d.Q, (d.Page-1)*pageSize, pageSize)
	d.Took = time.Since(start).Round(time.Microsecond).String()
	d.Total, d.Capped, d.Built = total, capped, x.built
	d.Rows = rows
	d.Locations = c.locations(u, d.Host, d.Q)
	link := func(p int) string {
		v := url.Values{}
		if d.Q != "" {
			v.Set("q", d.Q)
		}
		if d.Host != "" {
			v.Set("host", d.Host)
		}
		v.Set("page", strconv.Itoa(p))
		return "/ui/rules?" + v.Encode()
	}
	if d.Page > 1 {
		d.Prev = link(d.Page - 1)
	}
	if d.Page*pageSize < total {
		d.Next = link(d.Page + 1)
	}
	c.render(w, http.StatusOK, "rules", "Rules", u, d)
}

// locations returns the location phase's entries u may see, of host
// when not "", whose host, location, steps or upstream contain q (any
// case) when not "". They are few next to the rules (one per table of
// the config), so they are searched as they come.
func (c *Console) locations(u *user, host, q string) []admin.RuleInfo {
	ll, ok := c.b.(admin.LocationLister)
	if !ok {
		return nil
	}
	q = strings.ToLower(q)
	var out []admin.RuleInfo
	for _, l := range ll.Locations() {
		if l.LocationInfo == nil { // shown by its fields
			l.LocationInfo = &admin.LocationInfo{}
		}
		if !u.who.Allows(l.Host) || host != "" && !strings.EqualFold(l.Host, host) {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(l.Host+"\n"+l.Location+"\n"+l.Steps+"\n"+l.To), q) {
			continue
		}
		out = append(out, l)
	}
	return out
}
