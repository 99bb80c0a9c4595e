package console

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/redirectd/redirectd/engine/admin"
)

type versionsData struct {
	Versions    []versionRow
	CanRollback bool
	Notice      string
}

// versionsPage lists the versions with a diff link and, for a publisher
// whose token covers every host, rollback and unpin: a rollback changes
// every host's rules, so a scoped token may not.
func (c *Console) versionsPage(w http.ResponseWriter, r *http.Request, u *user) {
	d := versionsData{CanRollback: canRollback(u.who), Notice: r.URL.Query().Get("done")}
	if v, ok := c.b.(admin.Versioner); ok {
		d.Versions = versionRows(v.Versions())
	}
	if d.Notice != "" {
		d.Notice = cut(d.Notice)
	}
	c.render(w, http.StatusOK, "versions", "Versions", u, d)
}

func canRollback(who admin.Identity) bool { return who.Role >= admin.RolePublisher && !who.Scoped() }

type diffData struct {
	*admin.VersionDiff
	Scoped bool
	// FromName and ToName name the versions as the versions page does.
	FromName, ToName string
}

// diffLimit is how many rules of each kind a diff page lists.
const diffLimit = 1000

// versionDiffPage compares ?from= with ?to= (the serving version when
// empty), keeping a scoped token's hosts only.
func (c *Console) versionDiffPage(w http.ResponseWriter, r *http.Request, u *user) {
	v, ok := c.b.(admin.Versioner)
	if !ok {
		c.fail(w, r, u, http.StatusNotFound, "this server keeps no versions")
		return
	}
	q := r.URL.Query()
	if q.Get("from") == "" {
		c.fail(w, r, u, http.StatusBadRequest, "pick a version to compare on the versions page")
		return
	}
	d, err := v.Diff(q.Get("from"), q.Get("to"), diffLimit)
	if err != nil {
		c.fail(w, r, u, versionStatus(err), err.Error())
		return
	}
	if u.who.Scoped() {
		d = scopeDiff(d, u.who)
	}
	dd := diffData{VersionDiff: d, Scoped: u.who.Scoped(), FromName: d.From, ToName: d.To}
	for _, row := range versionRows(v.Versions()) {
		switch row.Hash {
		case d.From:
			dd.FromName = row.Name
		case d.To:
			dd.ToName = row.Name
		}
	}
	c.render(w, http.StatusOK, "diff", "Diff", u, dd)
}

// scopeDiff returns d with only the rules of who's hosts, counted again
// (the counts of the lists, which may be cut).
func scopeDiff(d *admin.VersionDiff, who admin.Identity) *admin.VersionDiff {
	out := &admin.VersionDiff{From: d.From, To: d.To, Truncated: d.Truncated}
	for _, r := range d.Added {
		if who.Allows(r.Host) {
			out.Added = append(out.Added, r)
		}
	}
	for _, r := range d.Removed {
		if who.Allows(r.Host) {
			out.Removed = append(out.Removed, r)
		}
	}
	for _, ch := range d.Changed {
		if who.Allows(ch.New.Host) || who.Allows(ch.Old.Host) {
			out.Changed = append(out.Changed, ch)
		}
	}
	out.AddedCount, out.RemovedCount, out.ChangedCount = len(out.Added), len(out.Removed), len(out.Changed)
	return out
}

func versionStatus(err error) int {
	if errors.Is(err, admin.ErrUnknownVersion) {
		return http.StatusNotFound
	}
	return http.StatusConflict
}

// rollback serves the version of the form's "to", pinned.
func (c *Console) rollback(w http.ResponseWriter, r *http.Request, u *user) {
	c.versionAction(w, r, u, func(v admin.Versioner) (string, error) {
		return v.Rollback(r.PostFormValue("to"), admin.Audit{Author: u.who.Name, Message: r.PostFormValue("message")})
	})
}

// unpin ends a rollback's pin: an admin's, as POST /versions/unpin.
func (c *Console) unpin(w http.ResponseWriter, r *http.Request, u *user) {
	if u.who.Role < admin.RoleAdmin {
		c.fail(w, r, u, http.StatusForbidden, "unpinning needs an admin token")
		return
	}
	c.versionAction(w, r, u, func(v admin.Versioner) (string, error) { return v.Unpin(admin.Audit{Author: u.who.Name}) })
}

func (c *Console) versionAction(w http.ResponseWriter, r *http.Request, u *user, do func(admin.Versioner) (string, error)) {
	v, ok := c.b.(admin.Versioner)
	if !ok {
		c.fail(w, r, u, http.StatusNotFound, "this server keeps no versions")
		return
	}
	if !canRollback(u.who) {
		c.fail(w, r, u, http.StatusForbidden, "a rollback changes every host's rules: it needs a publisher token that covers every host")
		return
	}
	msg, err := do(v)
	if err != nil {
		c.fail(w, r, u, versionStatus(err), err.Error())
		return
	}
	c.rules.prefetch()
	back(w, r, "/ui/versions?done="+url.QueryEscape(msg))
}
