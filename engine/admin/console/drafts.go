package console

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/redirectd/redirectd/engine/admin"
)

// draftRoutes adds the drafts pages, when the Backend is an Editor.
func (c *Console) draftRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ui/drafts", c.page(admin.RoleViewer, c.draftsPage))
	mux.HandleFunc("POST /ui/drafts", c.action(admin.RoleEditor, c.newDraft))
	mux.HandleFunc("GET /ui/drafts/{id}", c.page(admin.RoleViewer, c.draftPage))
	mux.HandleFunc("POST /ui/drafts/{id}/entries", c.action(admin.RoleEditor, c.addEntry))
	mux.HandleFunc("POST /ui/drafts/{id}/upload", c.uploadAction)
	mux.HandleFunc("POST /ui/drafts/{id}/promote", c.action(admin.RolePublisher, c.promote))
	mux.HandleFunc("POST /ui/drafts/{id}/delete", c.action(admin.RoleEditor, c.discard))
	mux.HandleFunc("POST /ui/misses", c.action(admin.RoleEditor, c.newDraftFromMisses))
	mux.HandleFunc("GET /ui/rules/edit", c.page(admin.RoleEditor, c.editRulePage))
	mux.HandleFunc("POST /ui/rules/edit", c.action(admin.RoleEditor, c.editRule))
}

func (c *Console) editor(w http.ResponseWriter, r *http.Request, u *user) (admin.Editor, bool) {
	e, ok := c.b.(admin.Editor)
	if !ok {
		c.fail(w, r, u, http.StatusNotFound, "this server's rules are not edited here: set [admin] edits_dir to keep drafts")
	}
	return e, ok
}

type draftsData struct {
	Drafts  []admin.DraftInfo
	CanEdit bool
	Off     string
}

func (c *Console) draftsPage(w http.ResponseWriter, r *http.Request, u *user) {
	d := draftsData{CanEdit: u.who.Role >= admin.RoleEditor}
	if e, ok := c.b.(admin.Editor); ok {
		d.Drafts = e.Drafts(u.who.Allows)
	} else {
		d.Off = "This server's rules are not edited here: set [admin] edits_dir to keep drafts."
	}
	c.render(w, http.StatusOK, "drafts", "Drafts", u, d)
}

func (c *Console) newDraft(w http.ResponseWriter, r *http.Request, u *user) {
	e, ok := c.editor(w, r, u)
	if !ok {
		return
	}
	d, err := e.NewDraft(u.who.Name)
	if err != nil {
		c.fail(w, r, u, admin.EditStatus(err), err.Error())
		return
	}
	back(w, r, "/ui/drafts/"+url.PathEscape(d.ID))
}

// draftPageSize is the rules of each list a draft page shows: the
// summary, checks and Promote come first, and a 500-row upload's diff
// is ten pages, not one long table over the forms.
const draftPageSize = 50

type draftData struct {
	*admin.DraftView
	Page, Pages, PageSize int
	Prev, Next            string
	CanEdit, CanPublish   bool
	Notice                string
	MaxUpload             string
	Path                  string
	Form                  entryForm
}

// EditLink is the draft page with the entry form filled in with r, for
// the diff's Edit links.
func (d draftData) EditLink(op string, r admin.EditRule) string {
	v := url.Values{"op": {op}, "host": {r.Host}, "from": {r.From}, "to": {r.To}, "kind": {r.Kind}}
	if r.Status != 0 {
		v.Set("status", strconv.Itoa(r.Status))
	}
	return d.Path + "?" + v.Encode() + "#entry"
}

// draftPage shows a draft: its counts, checks and the Promote form
// first, then the sample URLs whose answers change and the diff (added,
// changed, removed, a page at a time), then the forms to edit, upload
// and discard it. A link's op, host, from, to, kind and status fill in
// the entry form.
func (c *Console) draftPage(w http.ResponseWriter, r *http.Request, u *user) {
	f := formEntry(r.URL.Query())
	c.showDraft(w, r, u, http.StatusOK, f)
}

func (c *Console) showDraft(w http.ResponseWriter, r *http.Request, u *user, status int, f entryForm) {
	e, ok := c.editor(w, r, u)
	if !ok {
		return
	}
	page := 1
	if p, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && p > 1 {
		page = min(p, 1<<20) // (page-1)*draftPageSize cannot overflow
	}
	id := r.PathValue("id")
	v, err := e.Draft(id, u.who.Allows, draftPageSize, (page-1)*draftPageSize)
	if err != nil {
		c.fail(w, r, u, admin.EditStatus(err), err.Error())
		return
	}
	d := draftData{DraftView: v, Page: page, PageSize: draftPageSize, CanEdit: u.who.Role >= admin.RoleEditor, CanPublish: u.who.Role >= admin.RolePublisher,
		Notice: cut(r.URL.Query().Get("done")), MaxUpload: thousands(strconv.FormatInt(c.srv.MaxUpload(), 10)),
		Path: "/ui/drafts/" + url.PathEscape(id)}
	f.Action, f.CSRF = d.Path+"/entries", u.sess.csrf
	d.Form = f
	most := max(v.Counts.Added, v.Counts.Changed, v.Counts.Removed)
	d.Pages = max(1, (most+draftPageSize-1)/draftPageSize)
	if page > 1 {
		d.Prev = fmt.Sprintf("%s?page=%d", d.Path, page-1)
	}
	if page*draftPageSize < most {
		d.Next = fmt.Sprintf("%s?page=%d", d.Path, page+1)
	}
	c.render(w, status, "draft", "Draft "+id, u, d)
}

// addEntry adds one entry from the form: op add, change or delete. A
// refused entry shows the draft again with the form as it was sent and
// the reason, so that nothing typed is lost.
func (c *Console) addEntry(w http.ResponseWriter, r *http.Request, u *user) {
	e, ok := c.editor(w, r, u)
	if !ok {
		return
	}
	f := formEntry(r.PostForm)
	id := r.PathValue("id")
	if err := e.AddEntry(id, u.who.Name, f.entry(), u.who.Allows); err != nil {
		if errors.Is(err, admin.ErrNoDraft) {
			c.fail(w, r, u, admin.EditStatus(err), err.Error())
			return
		}
		f.Err = err.Error()
		c.showDraft(w, r, u, admin.EditStatus(err), f)
		return
	}
	back(w, r, "/ui/drafts/"+url.PathEscape(id)+"?done="+url.QueryEscape(f.Op+" "+f.Host+f.From+": entry added"))
}

// uploadTimeout replaces the server's read and write timeouts for an
// upload, as POST /drafts/{id}/upload does: a large file does not arrive
// in ten seconds.
const uploadTimeout = 15 * time.Minute

// uploadAction streams the file of a multipart form into the draft,
// never holding the whole of it: the form's csrf field must come first
// (the page puts it first; browsers send fields in order), so that
// nothing is read into a draft before the CSRF token is checked.
func (c *Console) uploadAction(w http.ResponseWriter, r *http.Request) {
	u := c.current(w, r, false)
	if u == nil {
		c.fail(w, r, nil, http.StatusForbidden, "your session has ended: sign in again")
		return
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(uploadTimeout))
	rc.SetWriteDeadline(time.Now().Add(uploadTimeout))
	r.Body = http.MaxBytesReader(w, r.Body, c.srv.MaxUpload()+64<<10)
	mr, err := r.MultipartReader()
	if err != nil {
		c.fail(w, r, u, http.StatusBadRequest, "send the file from the upload form (multipart/form-data)")
		return
	}
	part, err := mr.NextPart()
	if err != nil || part.FormName() != "csrf" {
		c.fail(w, r, u, http.StatusForbidden, "the form's CSRF token is missing or wrong: reload the page and try again")
		return
	}
	tok, _ := io.ReadAll(io.LimitReader(part, 256))
	if !sameToken(string(tok), u.sess.csrf) {
		c.fail(w, r, u, http.StatusForbidden, "the form's CSRF token is missing or wrong: reload the page and try again")
		return
	}
	if u.who.Role < admin.RoleEditor {
		c.fail(w, r, u, http.StatusForbidden, "your role ("+u.who.Role.String()+") cannot do this")
		return
	}
	e, ok := c.editor(w, r, u)
	if !ok {
		return
	}
	part, err = mr.NextPart()
	if err != nil || part.FormName() != "file" || part.FileName() == "" {
		c.fail(w, r, u, http.StatusBadRequest, "choose a file to upload")
		return
	}
	id := r.PathValue("id")
	n, err := e.Upload(id, u.who.Name, uploadType(part.FileName(), part.Header.Get("Content-Type")), part, u.who.Allows)
	if err != nil {
		c.fail(w, r, u, admin.EditStatus(err), "nothing was added: "+err.Error())
		return
	}
	back(w, r, "/ui/drafts/"+url.PathEscape(id)+"?done="+url.QueryEscape(thousands(strconv.Itoa(n))+" entries uploaded"))
}

// uploadType is the Content-Type of an uploaded file: the browser's
// when it names CSV or JSON lines, else from the file's extension
// (browsers send .ndjson files as application/octet-stream).
func uploadType(name, sent string) string {
	mt, _, _ := mime.ParseMediaType(sent)
	switch mt {
	case "text/csv", "application/x-ndjson":
		return mt
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".csv":
		return "text/csv"
	case ".ndjson", ".jsonl":
		return "application/x-ndjson"
	}
	return sent
}

// checkLimit is how many entries of each kind (added, changed,
// removed) a promote checks for problems before it asks to confirm: the
// checks follow each entry's redirects, so a million-entry draft is
// checked in part, and the confirmation says so.
const checkLimit = 10000

type confirmData struct {
	Path, Message string
	Problems      []admin.Problem
	Partial       bool
}

// promote makes the draft the serving version, with the form's message
// for the audit trail. A draft whose checks find problems (a loop, a
// chain, a shadowed rule) is not promoted at the first click: a page
// lists the problems and asks again ("confirm" = "yes").
func (c *Console) promote(w http.ResponseWriter, r *http.Request, u *user) {
	e, ok := c.editor(w, r, u)
	if !ok {
		return
	}
	msg := strings.TrimSpace(r.PostFormValue("message"))
	if msg == "" {
		c.fail(w, r, u, http.StatusBadRequest, "write a message saying why: the audit trail records it with the version")
		return
	}
	id := r.PathValue("id")
	if r.PostFormValue("confirm") != "yes" {
		v, err := e.Draft(id, u.who.Allows, checkLimit, 0)
		if err != nil {
			c.fail(w, r, u, admin.EditStatus(err), "not promoted: "+err.Error())
			return
		}
		if len(v.Problems) > 0 {
			c.render(w, http.StatusOK, "confirm", "Promote draft "+id+"?", u, confirmData{Path: "/ui/drafts/" + url.PathEscape(id),
				Message: msg, Problems: v.Problems, Partial: max(v.Counts.Added, v.Counts.Changed, v.Counts.Removed) > checkLimit})
			return
		}
	}
	n, err := e.Promote(id, admin.Audit{Author: u.who.Name, Message: msg}, u.who.Allows)
	if err != nil {
		c.fail(w, r, u, admin.EditStatus(err), "not promoted: "+err.Error())
		return
	}
	c.rules.prefetch()
	back(w, r, "/ui/versions?done="+url.QueryEscape(fmt.Sprintf("promoted as version %d", n)))
}

// discard deletes the draft.
func (c *Console) discard(w http.ResponseWriter, r *http.Request, u *user) {
	e, ok := c.editor(w, r, u)
	if !ok {
		return
	}
	if err := e.DiscardDraft(r.PathValue("id"), u.who.Allows); err != nil {
		c.fail(w, r, u, admin.EditStatus(err), err.Error())
		return
	}
	back(w, r, "/ui/drafts")
}

// maxPicked bounds the misses one form turns into entries.
const maxPicked = 1000

// newDraftFromMisses makes a draft of the picked misses, each with the
// target written beside it: an add entry per miss, its host and path as
// the rule's.
func (c *Console) newDraftFromMisses(w http.ResponseWriter, r *http.Request, u *user) {
	e, ok := c.editor(w, r, u)
	if !ok {
		return
	}
	status, _ := strconv.Atoi(r.PostFormValue("status"))
	var entries []admin.DraftEntry
	for _, i := range r.PostForm["pick"] {
		if _, err := strconv.Atoi(i); err != nil || len(entries) >= maxPicked {
			continue
		}
		de := admin.DraftEntry{Op: "add", Host: r.PostFormValue("host" + i), From: r.PostFormValue("path" + i),
			To: strings.TrimSpace(r.PostFormValue("to" + i)), Status: status}
		if de.To == "" {
			c.fail(w, r, u, http.StatusBadRequest, "write a target for "+cut(de.Host+de.From)+", or untick it")
			return
		}
		if !u.who.Allows(de.Host) {
			c.fail(w, r, u, http.StatusForbidden, "your token does not cover host "+strconv.Quote(cut(de.Host)))
			return
		}
		entries = append(entries, de)
	}
	if len(entries) == 0 {
		c.fail(w, r, u, http.StatusBadRequest, "tick at least one path and write its target")
		return
	}
	d, err := e.NewDraft(u.who.Name)
	if err != nil {
		c.fail(w, r, u, admin.EditStatus(err), err.Error())
		return
	}
	for _, de := range entries {
		if err := e.AddEntry(d.ID, u.who.Name, de, u.who.Allows); err != nil {
			c.fail(w, r, u, admin.EditStatus(err), "draft "+d.ID+" is made, but "+cut(de.Host+de.From)+" was not added: "+err.Error())
			return
		}
	}
	back(w, r, "/ui/drafts/"+url.PathEscape(d.ID)+"?done="+url.QueryEscape(strconv.Itoa(len(entries))+" misses added"))
}
