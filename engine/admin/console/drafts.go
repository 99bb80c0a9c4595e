package console

import (
	"net/http"

	"github.com/redirectd/redirectd/engine/admin"
)

// draftRoutes adds the drafts pages.
func (c *Console) draftRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ui/drafts", c.page(admin.RoleViewer, c.draftsPage))
	mux.HandleFunc("POST /ui/misses", c.action(admin.RoleEditor, c.newDraftFromMisses))
}

func (c *Console) draftsPage(w http.ResponseWriter, r *http.Request, u *user) {
	c.render(w, http.StatusOK, "drafts", "Drafts", u, nil)
}

func (c *Console) newDraftFromMisses(w http.ResponseWriter, r *http.Request, u *user) {
	c.fail(w, r, u, http.StatusNotImplemented, "this server has no drafts")
}
