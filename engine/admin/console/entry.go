package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// entryStatuses are the statuses the entry form offers: the redirects,
// and 410 (gone) and 451 (unavailable for legal reasons), which need
// no target.
var entryStatuses = []int{301, 302, 303, 307, 308, 410, 451}

// entryKinds are the kinds of rule an entry makes, as the rule model
// has them; "" leaves an add exact and a change the rule's own kind.
var entryKinds = []string{"exact", "prefix", "regex"}

// entryForm is the entry form's input, shown again with the error when
// the edit is refused, so that nothing typed is lost.
type entryForm struct {
	Action                   string
	Op, Host, From, To, Kind string
	Status                   int
	Err                      string
	Statuses                 []int
	Kinds                    []string
	Drafts                   []edit.Draft // the edit page's choice of draft
	Draft                    string
	CSRF                     string
	// Serving are the serving rules of the form's host and from, with
	// their conditions, which a change keeps (the edit page shows them).
	Serving []rule
}

// formEntry reads an entry form (a POST's form, or a link's query that
// fills it in).
func formEntry(v url.Values) entryForm {
	f := entryForm{Op: v.Get("op"), Host: strings.TrimSpace(v.Get("host")), From: strings.TrimSpace(v.Get("from")),
		To: strings.TrimSpace(v.Get("to")), Kind: v.Get("kind"), Draft: v.Get("draft"), Statuses: entryStatuses, Kinds: entryKinds}
	f.Status, _ = strconv.Atoi(v.Get("status"))
	switch f.Op {
	case "add", "change", "delete":
	default:
		f.Op = "add"
	}
	return f
}

// entry is the form's edit.
func (f *entryForm) entry() edit.Entry {
	de := edit.Entry{Op: f.Op, Host: f.Host, From: f.From, To: f.To, Status: f.Status, Kind: f.Kind}
	if de.Op == "delete" {
		de.To, de.Status, de.Kind = "", 0, ""
	}
	return de
}

// editRulePage shows the entry form for one rule (the rules page's
// Edit link fills it in), with a choice of open draft or a new one.
func (c *Console) editRulePage(w http.ResponseWriter, r *http.Request, u *user) {
	if !c.ed.Edits() {
		c.fail(w, r, u, edit.Status(edit.ErrNotEdited), edit.ErrNotEdited.Error())
		return
	}
	if err := c.ed.May(u.who, edit.AddEntry); err != nil {
		c.fail(w, r, u, edit.Status(err), err.Error())
		return
	}
	f := formEntry(r.URL.Query())
	if r.URL.Query().Get("op") == "" {
		f.Op = "change"
	}
	if u.who.Allows(f.Host) {
		x := c.rules.get(c.now())
		sp := x.span(strings.ToLower(f.Host))
		for _, rl := range x.rules[sp.lo:sp.hi] {
			if rl.From == f.From {
				f.Serving = append(f.Serving, rl)
			}
		}
	}
	c.showEditRule(w, u, http.StatusOK, f)
}

func (c *Console) showEditRule(w http.ResponseWriter, u *user, status int, f entryForm) {
	f.Action, f.CSRF = "/ui/rules/edit", u.sess.csrf
	f.Drafts, _ = c.ed.Drafts(u.who)
	c.render(w, status, "edit", "Edit a rule", u, f)
}

// editRule adds the form's entry to the draft it names, or to a new
// one; a refused edit shows the form again with its input.
func (c *Console) editRule(w http.ResponseWriter, r *http.Request, u *user) {
	f := formEntry(r.PostForm)
	id := f.Draft
	var err error
	if id == "" || id == "new" {
		var d edit.Draft
		d, err = c.ed.AddToNewDraft(u.who, []edit.Entry{f.entry()})
		id = d.ID
	} else {
		err = c.ed.AddEntry(u.who, id, f.entry())
	}
	if err != nil {
		f.Err, f.Draft = err.Error(), id
		c.showEditRule(w, u, edit.Status(err), f)
		return
	}
	back(w, r, "/ui/drafts/"+url.PathEscape(id)+"?done="+url.QueryEscape(f.Op+" "+f.Host+f.From+": entry added"))
}
