package console

import (
	"net/http"
	"net/url"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

type versionsData struct {
	Versions    []versionRow
	CanRollback bool
	// CanUnpin: the model lets the user unpin (an admin's, not a
	// publisher's, though both may roll back).
	CanUnpin bool
	Notice   string
}

// versionsPage lists the versions with a diff link and, for a user the
// editing model lets roll back (a publisher whose token covers every
// host: a rollback changes every host's rules), rollback, and for one
// it lets unpin (an admin), unpin.
func (c *Console) versionsPage(w http.ResponseWriter, r *http.Request, u *user) {
	d := versionsData{CanRollback: c.ed.May(u.who, edit.Rollback) == nil, CanUnpin: c.ed.May(u.who, edit.Unpin) == nil,
		Notice: r.URL.Query().Get("done")}
	if c.ed.KeepsVersions() {
		list, err := c.ed.Versions(u.who)
		if err != nil {
			c.fail(w, r, u, edit.Status(err), err.Error())
			return
		}
		d.Versions = versionRows(list)
	}
	if d.Notice != "" {
		d.Notice = cut(d.Notice)
	}
	c.render(w, http.StatusOK, "versions", "Versions", u, d)
}

type diffData struct {
	*edit.VersionDiff
	Scoped bool
	// FromName and ToName name the versions as the versions page does.
	FromName, ToName string
}

// diffLimit is how many rules of each kind a diff page lists.
const diffLimit = 1000

// versionDiffPage compares ?from= with ?to= (the serving version when
// empty), as the editing model keeps it to a scoped token's hosts.
func (c *Console) versionDiffPage(w http.ResponseWriter, r *http.Request, u *user) {
	q := r.URL.Query()
	d, err := c.ed.Diff(u.who, q.Get("from"), q.Get("to"), diffLimit)
	if err != nil {
		c.fail(w, r, u, edit.Status(err), err.Error())
		return
	}
	dd := diffData{VersionDiff: d, Scoped: u.who.Scoped(), FromName: d.From, ToName: d.To}
	list, _ := c.ed.Versions(u.who)
	for _, row := range versionRows(list) {
		switch row.Hash {
		case d.From:
			dd.FromName = row.Name
		case d.To:
			dd.ToName = row.Name
		}
	}
	c.render(w, http.StatusOK, "diff", "Diff", u, dd)
}

// rollback serves the version of the form's "to", pinned.
func (c *Console) rollback(w http.ResponseWriter, r *http.Request, u *user) {
	c.versionAction(w, r, u)(c.ed.Rollback(u.who, r.PostFormValue("to"), r.PostFormValue("message")))
}

// unpin ends a rollback's pin.
func (c *Console) unpin(w http.ResponseWriter, r *http.Request, u *user) {
	c.versionAction(w, r, u)(c.ed.Unpin(u.who))
}

// versionAction answers a rollback or unpin with its outcome.
func (c *Console) versionAction(w http.ResponseWriter, r *http.Request, u *user) func(string, error) {
	return func(msg string, err error) {
		if err != nil {
			c.fail(w, r, u, edit.Status(err), err.Error())
			return
		}
		c.rules.prefetch()
		back(w, r, "/ui/versions?done="+url.QueryEscape(msg))
	}
}
