package console

import (
	"net/http"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

type missesData struct {
	Host    string
	CanEdit bool
	Rows    []admin.MissInfo
	Err     string
}

// missesShown is how many misses the misses page lists.
const missesShown = 100

// missesPage lists the top misses (?host= for one host) with a box to
// pick each and a field for its target; the form POSTs them into a new
// draft (newDraftFromMisses).
func (c *Console) missesPage(w http.ResponseWriter, r *http.Request, u *user) {
	d := missesData{Host: r.URL.Query().Get("host"), CanEdit: u.who.Role >= edit.RoleEditor}
	status := http.StatusOK
	d.Rows, d.Err = c.missList(r.Context(), u, d.Host, missesShown)
	if d.Host != "" && !u.who.Allows(d.Host) {
		status = http.StatusForbidden
	}
	c.render(w, status, "misses", "Misses", u, d)
}
