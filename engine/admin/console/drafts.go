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

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// draftRoutes adds the drafts pages, when the Backend is an Editor.
func (c *Console) draftRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /ui/drafts", c.page(c.draftsPage))
	mux.HandleFunc("POST /ui/drafts", c.act(edit.NewDraft, c.newDraft))
	mux.HandleFunc("GET /ui/drafts/{id}", c.page(c.draftPage))
	mux.HandleFunc("POST /ui/drafts/{id}/entries", c.act(edit.AddEntry, c.addEntry))
	mux.HandleFunc("POST /ui/drafts/{id}/upload", c.uploadAction)
	mux.HandleFunc("POST /ui/drafts/{id}/promote", c.act(edit.Promote, c.promote))
	mux.HandleFunc("GET /ui/operations/{id}", c.page(c.operationPage))
	mux.HandleFunc("POST /ui/drafts/{id}/delete", c.act(edit.DiscardDraft, c.discard))
	mux.HandleFunc("POST /ui/misses", c.act(edit.AddEntry, c.newDraftFromMisses))
	mux.HandleFunc("GET /ui/rules/edit", c.page(c.editRulePage))
	mux.HandleFunc("POST /ui/rules/edit", c.act(edit.AddEntry, c.editRule))
}

// editFailed shows err of the editing model with its status, prefixed
// by what was not done.
func (c *Console) editFailed(w http.ResponseWriter, r *http.Request, u *user, prefix string, err error) {
	c.fail(w, r, u, edit.Status(err), prefix+err.Error())
}

type draftsData struct {
	Drafts  []edit.Draft
	CanEdit bool
	Off     string
}

func (c *Console) draftsPage(w http.ResponseWriter, r *http.Request, u *user) {
	d := draftsData{CanEdit: c.ed.May(u.who, edit.AddEntry) == nil}
	var err error
	if d.Drafts, err = c.ed.Drafts(u.who); errors.Is(err, edit.ErrNotEdited) {
		d.Off = "This server's rules are not edited here: set [admin] edits_dir to keep drafts."
	} else if err != nil {
		c.editFailed(w, r, u, "", err)
		return
	}
	c.render(w, http.StatusOK, "drafts", "Drafts", u, d)
}

func (c *Console) newDraft(w http.ResponseWriter, r *http.Request, u *user) {
	d, err := c.ed.NewDraft(u.who)
	if err != nil {
		c.editFailed(w, r, u, "", err)
		return
	}
	back(w, r, "/ui/drafts/"+url.PathEscape(d.ID))
}

// draftPageSize is the rules of each list a draft page shows: the
// summary, checks and Promote come first, and a 500-row upload's diff
// is ten pages, not one long table over the forms.
const draftPageSize = 50

type draftData struct {
	*edit.DraftView
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
func (d draftData) EditLink(op string, r edit.Rule) string {
	v := url.Values{"op": {op}, "host": {r.Host}, "from": {r.From}, "to": {r.To}, "kind": {r.Kind}}
	if r.Status != 0 {
		v.Set("status", strconv.Itoa(r.Status))
	}
	if e := r.Entry; e != nil {
		// As given, so that the edit names the same rule.
		if c := edit.ConditionsTOML(e.Query, e.When); c != "" {
			v.Set("conditions", c)
		}
		if h := headersText(e.Headers); h != "" {
			v.Set("headers", h)
		}
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
	page := 1
	if p, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && p > 1 {
		page = min(p, 1<<20) // (page-1)*draftPageSize cannot overflow
	}
	id := r.PathValue("id")
	v, err := c.ed.Draft(u.who, id, draftPageSize, (page-1)*draftPageSize)
	if err != nil {
		c.editFailed(w, r, u, "", err)
		return
	}
	d := draftData{DraftView: v, Page: page, PageSize: draftPageSize, CanEdit: c.ed.May(u.who, edit.AddEntry) == nil,
		CanPublish: c.ed.May(u.who, edit.Promote) == nil,
		Notice:     cut(r.URL.Query().Get("done")), MaxUpload: thousands(strconv.FormatInt(c.srv.MaxUpload(), 10)),
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
	f := formEntry(r.PostForm)
	id := r.PathValue("id")
	de, err := f.entry()
	if err == nil {
		err = c.ed.AddEntry(u.who, id, de)
	}
	if err != nil {
		if errors.Is(err, edit.ErrNoDraft) {
			c.editFailed(w, r, u, "", err)
			return
		}
		f.Err = err.Error()
		c.showDraft(w, r, u, edit.Status(err), f)
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
	if err := c.ed.May(u.who, edit.Upload); err != nil {
		c.editFailed(w, r, u, "", err)
		return
	}
	part, err = mr.NextPart()
	if err != nil || part.FormName() != "file" || part.FileName() == "" {
		c.fail(w, r, u, http.StatusBadRequest, "choose a file to upload")
		return
	}
	id := r.PathValue("id")
	n, err := c.ed.Upload(u.who, id, uploadType(part.FileName(), part.Header.Get("Content-Type")), part)
	if err != nil {
		c.editFailed(w, r, u, "", err)
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
	Problems      []edit.Problem
	Partial       bool
}

// promote makes the draft the serving version, with the form's message
// for the audit trail. A draft whose checks find problems (a loop, a
// chain, a shadowed rule) is not promoted at the first click: a page
// lists the problems and asks again ("confirm" = "yes").
func (c *Console) promote(w http.ResponseWriter, r *http.Request, u *user) {
	msg, id := r.PostFormValue("message"), r.PathValue("id")
	// Checked first (a role that may not, no message), so that the
	// confirmation is never asked of a promote that would be refused.
	if _, err := c.ed.StartPromote(u.who, id, msg); err != nil {
		c.editFailed(w, r, u, "not promoted: ", err)
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		v, err := c.ed.Draft(u.who, id, checkLimit, 0)
		if err != nil {
			c.editFailed(w, r, u, "not promoted: ", err)
			return
		}
		if len(v.Problems) > 0 {
			c.render(w, http.StatusOK, "confirm", "Promote draft "+id+"?", u, confirmData{Path: "/ui/drafts/" + url.PathEscape(id),
				Message: strings.TrimSpace(msg), Problems: v.Problems, Partial: max(v.Counts.Added, v.Counts.Changed, v.Counts.Removed) > checkLimit})
			return
		}
	}
	op, err := c.srv.StartPromote(u.who, id, msg)
	if err != nil {
		c.editFailed(w, r, u, "not promoted: ", err)
		return
	}
	select {
	case <-op.Done():
		c.promoted(w, r, u, op)
	case <-c.wait():
		back(w, r, "/ui/operations/"+url.PathEscape(op.ID())+"?draft="+url.QueryEscape(id))
	case <-r.Context().Done():
	}
}

// discard deletes the draft.
func (c *Console) discard(w http.ResponseWriter, r *http.Request, u *user) {
	if err := c.ed.DiscardDraft(u.who, r.PathValue("id")); err != nil {
		c.editFailed(w, r, u, "", err)
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
	status, _ := strconv.Atoi(r.PostFormValue("status"))
	var entries []edit.Entry
	for _, i := range r.PostForm["pick"] {
		if _, err := strconv.Atoi(i); err != nil || len(entries) >= maxPicked {
			continue
		}
		de := edit.Entry{Op: "add", Host: r.PostFormValue("host" + i), From: r.PostFormValue("path" + i),
			To: strings.TrimSpace(r.PostFormValue("to" + i)), Status: status}
		if de.To == "" {
			c.fail(w, r, u, http.StatusBadRequest, "write a target for "+cut(de.Host+de.From)+", or untick it")
			return
		}
		entries = append(entries, de)
	}
	if len(entries) == 0 {
		c.fail(w, r, u, http.StatusBadRequest, "tick at least one path and write its target")
		return
	}
	d, err := c.ed.AddToNewDraft(u.who, entries)
	if err != nil {
		c.editFailed(w, r, u, "", err)
		return
	}
	back(w, r, "/ui/drafts/"+url.PathEscape(d.ID)+"?done="+url.QueryEscape(strconv.Itoa(len(entries))+" misses added"))
}
