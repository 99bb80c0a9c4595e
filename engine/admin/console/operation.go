package console

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
)

// promptWait is how long a promote's form waits for the outcome before
// it answers with the operation's page, which the browser loads again
// until the outcome is there: a long promote (a million-row draft) never
// holds the request past the server's write timeout, and its outcome is
// kept whatever the browser does.
const promptWait = 3 * time.Second

// refreshEvery is how often the operation's page is loaded again.
const refreshEvery = 2

type operationData struct {
	ID, Draft string
	Every     int
}

func (d operationData) refresh() int { return d.Every }

// operationPage shows a promote still running, or, once it has ended,
// its outcome as the promote's form would have: the versions page, or
// the error with its status. Only its author, or an admin, sees it.
func (c *Console) operationPage(w http.ResponseWriter, r *http.Request, u *user) {
	op := c.srv.Operation(u.who, r.PathValue("id"))
	if op == nil {
		c.fail(w, r, u, http.StatusNotFound, "no such operation: the outcomes of the last 100 are kept, in memory; the versions page shows what serves")
		return
	}
	select {
	case <-op.Done():
		c.promoted(w, r, u, op)
	default:
		c.render(w, http.StatusOK, "operation", "Promoting", u, operationData{ID: op.ID(), Draft: cut(r.URL.Query().Get("draft")), Every: c.refresh})
	}
}

// promoted answers a promote that has ended: to the versions page with
// the version made, or the error with the status the API gives it.
func (c *Console) promoted(w http.ResponseWriter, r *http.Request, u *user, op *admin.Operation) {
	n, err := op.Outcome()
	if err != nil {
		c.editFailed(w, r, u, "not promoted: ", err)
		return
	}
	c.rules.prefetch()
	back(w, r, "/ui/versions?done="+url.QueryEscape(fmt.Sprintf("promoted as version %d", n)))
}
