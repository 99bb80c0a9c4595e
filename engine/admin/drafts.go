package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// DraftInfo is one draft as GET /drafts lists it.
type DraftInfo struct {
	ID      string    `json:"id"`
	Base    int       `json:"base"`
	Author  string    `json:"author"`
	Created time.Time `json:"created"`
	Entries int       `json:"entries"`
}

// EditRule is a rule as a draft's diff shows it.
type EditRule struct {
	Host   string `json:"host"`
	From   string `json:"from"`
	To     string `json:"to"`
	Status int    `json:"status"`
	Kind   string `json:"kind"`
	// Conditions are the rule's conditions besides its host, as
	// matcher's Rule.Conditions writes them (`scheme = https`); an edit
	// keeps those of the rule it changes.
	Conditions []string `json:"conditions,omitempty"`
}

// EditChange is a rule a draft changes.
type EditChange struct {
	Old EditRule `json:"old"`
	New EditRule `json:"new"`
}

// Sample is a URL whose answer a draft changes: "301 /x" before, "301
// /y" after ("404" for none, "forwarded" when an upstream takes it).
type Sample struct {
	URL string `json:"url"`
	Old string `json:"old"`
	New string `json:"new"`
}

// Problem is something wrong a draft would make: a "loop" (a redirect
// that comes back to where it started), a "chain" (a redirect to a URL
// that redirects again) or a "shadowed" rule (one another rule answers
// before it).
type Problem struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// DraftView is a draft's change as `check -baseline` shows one: the
// lists hold the page asked for (?limit=, ?offset=), the counts are
// whole.
type DraftView struct {
	ID       string       `json:"id"`
	Base     int          `json:"base"`
	Added    []EditRule   `json:"added"`
	Changed  []EditChange `json:"changed"`
	Removed  []EditRule   `json:"removed"`
	Samples  []Sample     `json:"samples"`
	Problems []Problem    `json:"problems"`
	Counts   Counts       `json:"counts"`
}

// DraftEntry is one edit: {"op":"add","host":"","from":"/a","to":"/b",
// "status":301}; kind ("exact", "prefix", "regex") is optional.
type DraftEntry struct {
	Op     string `json:"op"`
	Host   string `json:"host"`
	From   string `json:"from"`
	To     string `json:"to,omitempty"`
	Status int    `json:"status,omitempty"`
	Kind   string `json:"kind,omitempty"`
}

// Ruleset is the serving version as a rule-set archive, for GET
// /ruleset: the .tar.gz's bytes and its ETag, made from one snapshot of
// the rules and never changed after (a new version is a new Ruleset), so
// the two always agree.
type Ruleset struct {
	Data []byte
	ETag string
	Time time.Time
}

// Scope says whether a host's rules may be seen and edited.
type Scope func(host string) bool

// Editor is a Backend whose rules can be edited through drafts; the
// /drafts endpoints and /ruleset exist only then. Its methods are
// called like Backend's (concurrently, never on a traffic loop). in is
// the caller's Scope: entries of other hosts are left out of what is
// shown, and an edit of one is ErrOutOfScope.
type Editor interface {
	NewDraft(author string) (DraftInfo, error)
	Drafts(in Scope) []DraftInfo
	Draft(id string, in Scope, limit, offset int) (*DraftView, error)
	AddEntry(id, author string, e DraftEntry, in Scope) error
	// Upload adds the entries of body (CSV or JSON lines, by
	// contentType), all or none, and returns how many.
	Upload(id, author, contentType string, body io.Reader, in Scope) (int, error)
	DiscardDraft(id string, in Scope) error
	// Promote makes the draft a new version that serves, and returns
	// its number.
	Promote(id string, a Audit, in Scope) (int, error)
	Ruleset() (Ruleset, error)
}

// The errors of an Editor, each answered with its status.
var (
	ErrNoDraft     = errors.New("no such draft; GET /drafts lists them")                 // 404
	ErrEditRefused = errors.New("the edit cannot be made now")                           // 409
	ErrOutOfScope  = errors.New("the token may not edit the rules of this host")         // 403
	ErrBadEdit     = errors.New("the edit is not valid")                                 // 400
	ErrInvalid     = errors.New("the edited rules do not load")                          // 422
	ErrNoRuleset   = errors.New("no rule-set archive: this node's rules are not edited") // 404
	ErrQuota       = errors.New("over the token's draft quota")                          // 429
	// ErrNotDurable is a change that could not be kept on disk (its
	// version, commit or audit record: a full or failing disk); it was
	// not made, and the rules served are the ones before it.
	ErrNotDurable = errors.New("the change could not be made durable") // 507
)

// EditStatus is the HTTP status an Editor's error is answered with, by
// the JSON endpoints and the console alike: 404 for no such draft or
// archive, 403 out of scope, 413 too large, 400 a bad edit, 422 rules
// that do not load, 507 a change that could not be kept, else 409.
func EditStatus(err error) int {
	var mb *http.MaxBytesError
	switch {
	case errors.Is(err, ErrNotDurable):
		return http.StatusInsufficientStorage
	case errors.Is(err, ErrNoDraft), errors.Is(err, ErrNoRuleset):
		return http.StatusNotFound
	case errors.Is(err, ErrOutOfScope):
		return http.StatusForbidden
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrBadEdit):
		return http.StatusBadRequest
	case errors.Is(err, ErrInvalid):
		return http.StatusUnprocessableEntity
	case errors.Is(err, ErrQuota):
		return http.StatusTooManyRequests
	}
	return http.StatusConflict
}

// Pages of a draft's lists, unless ?limit= says.
const defaultDraftLimit = 100

// maxEntryBody bounds the body of one entry or of a promote.
const maxEntryBody = 64 << 10

// uploadTimeout replaces the server's read and write timeouts for an
// upload: a 256 MiB body does not arrive in readTimeout.
const uploadTimeout = 15 * time.Minute

func (s *Server) draftRoutes(mux *http.ServeMux) {
	e, ok := s.b.(Editor)
	if !ok {
		return
	}
	mux.HandleFunc("POST /drafts", need(RoleEditor, false, func(w http.ResponseWriter, r *http.Request) {
		d, err := e.NewDraft(whoIs(r).Name)
		if err != nil {
			text(w, EditStatus(err), line(err.Error()))
			return
		}
		writeJSONStatus(w, http.StatusCreated, map[string]any{"id": d.ID, "base": d.Base})
	}))
	mux.HandleFunc("GET /drafts", need(RoleViewer, false, func(w http.ResponseWriter, r *http.Request) {
		list := e.Drafts(whoIs(r).Allows)
		if list == nil {
			list = []DraftInfo{}
		}
		writeJSON(w, list)
	}))
	mux.HandleFunc("GET /drafts/{id}", need(RoleViewer, false, func(w http.ResponseWriter, r *http.Request) { draftView(w, r, e) }))
	mux.HandleFunc("DELETE /drafts/{id}", need(RoleEditor, false, func(w http.ResponseWriter, r *http.Request) {
		if err := e.DiscardDraft(r.PathValue("id"), whoIs(r).Allows); err != nil {
			text(w, EditStatus(err), line(err.Error()))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("POST /drafts/{id}/entries", need(RoleEditor, false, func(w http.ResponseWriter, r *http.Request) { addEntry(w, r, e) }))
	mux.HandleFunc("POST /drafts/{id}/upload", need(RoleEditor, false, func(w http.ResponseWriter, r *http.Request) { s.upload(w, r, e) }))
	mux.HandleFunc("POST /drafts/{id}/promote", need(RolePublisher, false, func(w http.ResponseWriter, r *http.Request) { s.promote(w, r, e) }))
	mux.HandleFunc("GET /operations/{id}", need(RoleEditor, false, s.operationStatus))
	mux.HandleFunc("GET /ruleset", need(RoleViewer, true, func(w http.ResponseWriter, r *http.Request) { ruleset(w, r, e) }))
}

func draftView(w http.ResponseWriter, r *http.Request, e Editor) {
	q, err := versionQuery(r, "limit", "offset")
	if err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	limit, offset := defaultDraftLimit, 0
	for name, p := range map[string]*int{"limit": &limit, "offset": &offset} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				text(w, http.StatusBadRequest, fmt.Sprintf("cannot parse %s %q: want a number, 0 or more\n", name, cut(v)))
				return
			}
			*p = n
		}
	}
	d, err := e.Draft(r.PathValue("id"), whoIs(r).Allows, limit, offset)
	if err != nil {
		text(w, EditStatus(err), line(err.Error()))
		return
	}
	writeJSON(w, d)
}

// decodeBody reads one JSON object of at most maxEntryBody bytes into v,
// refusing unknown fields (a misspelt "stauts" would otherwise be a
// silent default).
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxEntryBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("cannot parse the body as a JSON object: %v", err)
	}
	if dec.More() {
		return errors.New("the body holds more than one JSON value; upload many entries to POST /drafts/{id}/upload")
	}
	return nil
}

func addEntry(w http.ResponseWriter, r *http.Request, e Editor) {
	var de DraftEntry
	if err := decodeBody(w, r, &de); err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	id := whoIs(r)
	if err := e.AddEntry(r.PathValue("id"), id.Name, de, id.Allows); err != nil {
		text(w, EditStatus(err), line(err.Error()))
		return
	}
	writeJSONStatus(w, http.StatusCreated, map[string]int{"entries": 1})
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request, e Editor) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(uploadTimeout))
	rc.SetWriteDeadline(time.Now().Add(uploadTimeout))
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxUploadBytes)
	id := whoIs(r)
	n, err := e.Upload(r.PathValue("id"), id.Name, r.Header.Get("Content-Type"), body, id.Allows)
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			err = fmt.Errorf("the upload is larger than %d bytes ([admin] max_upload_bytes); nothing was added: %w", mb.Limit, err)
		}
		text(w, EditStatus(err), line(err.Error()))
		return
	}
	writeJSONStatus(w, http.StatusCreated, map[string]int{"entries": n})
}

// promote runs the promote as an operation (operations.go): answered
// with its outcome, or 202 and a status to poll when it takes long.
func (s *Server) promote(w http.ResponseWriter, r *http.Request, e Editor) {
	var body struct {
		Message string `json:"message"`
	}
	if err := decodeBody(w, r, &body); err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	if body.Message == "" {
		text(w, http.StatusBadRequest, "missing message: POST {\"message\":\"why\"}; the audit trail records it with the version\n")
		return
	}
	id := whoIs(r)
	draft := r.PathValue("id")
	op := s.ops.start(id.Name, func() (int, error) {
		return e.Promote(draft, Audit{Author: id.Name, Message: body.Message}, id.Allows)
	})
	s.awaitPromote(w, r, op)
}

// ruleset serves the archive with its ETag; http.ServeContent answers
// If-None-Match with 304, as [rules] source asks.
func ruleset(w http.ResponseWriter, r *http.Request, e Editor) {
	rs, err := e.Ruleset()
	if err != nil {
		text(w, EditStatus(err), line(err.Error()))
		return
	}
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Now().Add(uploadTimeout))
	w.Header().Set("ETag", rs.ETag)
	w.Header().Set("Content-Type", "application/gzip")
	http.ServeContent(w, r, "ruleset.tar.gz", rs.Time, bytes.NewReader(rs.Data))
}

// writeJSONStatus is writeJSON with a status other than 200.
func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
