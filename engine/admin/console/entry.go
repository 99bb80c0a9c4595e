package console

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/redirectd/redirectd/engine/admin"
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
	// Conditions are the rule's conditions as the config's TOML writes
	// them, a key a line (`scheme = "https"`, `header = { X-Beta = "1" }`,
	// `query = { id = "5" }`); Headers its header fields, `Name: value`
	// a line. Both are kept as typed, to show again.
	Conditions, Headers string
	Err                 string
	Statuses            []int
	Kinds               []string
	Drafts              []edit.Draft // the edit page's choice of draft
	Draft               string
	CSRF                string
	// Serving are the serving rules of the form's host and from, with
	// their conditions, which a change keeps (the edit page shows them).
	Serving []admin.RuleInfo
}

// formEntry reads an entry form (a POST's form, or a link's query that
// fills it in).
func formEntry(v url.Values) entryForm {
	f := entryForm{Op: v.Get("op"), Host: strings.TrimSpace(v.Get("host")), From: strings.TrimSpace(v.Get("from")),
		To: strings.TrimSpace(v.Get("to")), Kind: v.Get("kind"), Draft: v.Get("draft"), Statuses: entryStatuses, Kinds: entryKinds}
	f.Status, _ = strconv.Atoi(v.Get("status"))
	f.Conditions, f.Headers = strings.TrimSpace(v.Get("conditions")), strings.TrimSpace(v.Get("headers"))
	switch f.Op {
	case "add", "change", "delete":
	default:
		f.Op = "add"
	}
	return f
}

// entry is the form's edit, or what is wrong with its conditions or
// headers as text (the editing model checks what they say).
func (f *entryForm) entry() (edit.Entry, error) {
	de := edit.Entry{Op: f.Op, Host: f.Host, From: f.From, To: f.To, Status: f.Status, Kind: f.Kind}
	if de.Op == "delete" {
		de.To, de.Status, de.Kind = "", 0, ""
	}
	var err error
	if de.Query, de.When, err = formConditions(f.Conditions); err != nil {
		return de, err
	}
	if de.Op != "delete" { // a delete's rule goes, headers and all
		de.Headers, err = formHeaders(f.Headers)
	}
	return de, err
}

// formConditions reads the conditions field: TOML keys and values as a
// [[rule]]'s when table holds them, and query as its query; the values
// are checked by the editing model, as the config checks them.
func formConditions(text string) (map[string]string, map[string]any, error) {
	if text == "" {
		return nil, nil, nil
	}
	var when map[string]any
	if _, err := toml.Decode(text, &when); err != nil {
		return nil, nil, fmt.Errorf("%w: conditions: %v (write one a line, as a rule's when table: scheme = \"https\", header = { X-Beta = \"1\" }, query = { id = \"5\" })",
			edit.ErrBadEdit, firstLine(err.Error()))
	}
	qv, ok := when["query"]
	if !ok {
		if len(when) == 0 {
			when = nil // blank lines or comments: no condition
		}
		return nil, when, nil
	}
	delete(when, "query")
	t, ok := qv.(map[string]any)
	if !ok || len(t) == 0 {
		return nil, nil, fmt.Errorf("%w: conditions: query must be a table of parameter names to values, such as query = { id = \"5\" }", edit.ErrBadEdit)
	}
	q := make(map[string]string, len(t))
	for k, v := range t {
		s, ok := v.(string)
		if !ok {
			return nil, nil, fmt.Errorf("%w: conditions: query parameter %q must be a string (\"*\" for any value)", edit.ErrBadEdit, k)
		}
		q[k] = s
	}
	if len(when) == 0 {
		when = nil
	}
	return q, when, nil
}

// formHeaders reads the headers field: one `Name: value` a line.
func formHeaders(text string) (map[string]string, error) {
	if text == "" {
		return nil, nil
	}
	hs := map[string]string{}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: headers: %q is not Name: value", edit.ErrBadEdit, cut(line))
		}
		hs[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	return hs, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
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
	de, err := f.entry()
	switch {
	case err != nil:
	case id == "" || id == "new":
		var d edit.Draft
		d, err = c.ed.AddToNewDraft(u.who, []edit.Entry{de})
		id = d.ID
	default:
		err = c.ed.AddEntry(u.who, id, de)
	}
	if err != nil {
		f.Err, f.Draft = err.Error(), id
		c.showEditRule(w, u, edit.Status(err), f)
		return
	}
	back(w, r, "/ui/drafts/"+url.PathEscape(id)+"?done="+url.QueryEscape(f.Op+" "+f.Host+f.From+": entry added"))
}

// headersText writes header fields as the headers field takes them.
func headersText(hs map[string]string) string {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(hs)) {
		lines = append(lines, k+": "+hs[k])
	}
	return strings.Join(lines, "\n")
}
