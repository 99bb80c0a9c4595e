package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// Pages of a draft's lists, unless ?limit= says.
const defaultDraftLimit = 100

// maxEntryBody bounds the body of one entry or of a promote.
const maxEntryBody = 64 << 10

// uploadTimeout replaces the server's read and write timeouts for an
// upload: a 256 MiB body does not arrive in readTimeout.
const uploadTimeout = 15 * time.Minute

// draftRoutes adds the drafts endpoints, when the Backend is an Editor:
// each parses its request, asks the editing model (s.edit) and writes
// what it answers.
func (s *Server) draftRoutes(mux *http.ServeMux) {
	if !s.edit.Edits() {
		return
	}
	mux.HandleFunc("POST /drafts", s.may(edit.NewDraft, func(w http.ResponseWriter, r *http.Request) {
		d, err := s.edit.NewDraft(*whoIs(r))
		reply(w, http.StatusCreated, map[string]any{"id": d.ID, "base": d.Base}, err)
	}))
	mux.HandleFunc("GET /drafts", s.may(edit.ListDrafts, func(w http.ResponseWriter, r *http.Request) {
		list, err := s.edit.Drafts(*whoIs(r))
		reply(w, http.StatusOK, list, err)
	}))
	mux.HandleFunc("GET /drafts/{id}", s.may(edit.ShowDraft, s.draftView))
	mux.HandleFunc("DELETE /drafts/{id}", s.may(edit.DiscardDraft, func(w http.ResponseWriter, r *http.Request) {
		if err := s.edit.DiscardDraft(*whoIs(r), r.PathValue("id")); err != nil {
			editError(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	mux.HandleFunc("POST /drafts/{id}/entries", s.may(edit.AddEntry, s.addEntry))
	mux.HandleFunc("POST /drafts/{id}/upload", s.may(edit.Upload, s.upload))
	mux.HandleFunc("POST /drafts/{id}/promote", s.may(edit.Promote, s.promote))
	mux.HandleFunc("GET /operations/{id}", need(edit.RoleEditor, false, s.operationStatus))
	mux.HandleFunc("GET /ruleset", s.may(edit.Export, s.ruleset))
}

// may wraps h so that a caller the editing model would refuse op is
// refused (403) before its request's body is read.
func (s *Server) may(op edit.Op, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.edit.May(*whoIs(r), op); err != nil {
			editError(w, err)
			return
		}
		h(w, r)
	}
}

// reply answers v as JSON with status, or err of the editing model
// with its own.
func reply[T any](w http.ResponseWriter, status int, v T, err error) {
	if err != nil {
		editError(w, err)
		return
	}
	writeJSONStatus(w, status, v)
}

// editError answers err of the editing model with its status.
func editError(w http.ResponseWriter, err error) {
	text(w, edit.Status(err), line(err.Error()))
}

func (s *Server) draftView(w http.ResponseWriter, r *http.Request) {
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
	d, err := s.edit.Draft(*whoIs(r), r.PathValue("id"), limit, offset)
	reply(w, http.StatusOK, d, err)
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

func (s *Server) addEntry(w http.ResponseWriter, r *http.Request) {
	var de edit.Entry
	if err := decodeBody(w, r, &de); err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	reply(w, http.StatusCreated, map[string]int{"entries": 1}, s.edit.AddEntry(*whoIs(r), r.PathValue("id"), de))
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(uploadTimeout))
	rc.SetWriteDeadline(time.Now().Add(uploadTimeout))
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxUploadBytes)
	n, err := s.edit.Upload(*whoIs(r), r.PathValue("id"), r.Header.Get("Content-Type"), body)
	reply(w, http.StatusCreated, map[string]int{"entries": n}, err)
}

// promote runs the promote as an operation (operations.go): answered
// with its outcome, or 202 and a status to poll when it takes long.
func (s *Server) promote(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Message string `json:"message"`
	}
	if err := decodeBody(w, r, &body); err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	op, err := s.StartPromote(*whoIs(r), r.PathValue("id"), body.Message)
	if err != nil {
		editError(w, err)
		return
	}
	s.awaitPromote(w, r, op)
}

// ruleset serves the archive with its ETag; http.ServeContent answers
// If-None-Match with 304, as [rules] source asks.
func (s *Server) ruleset(w http.ResponseWriter, r *http.Request) {
	rs, err := s.edit.Ruleset(*whoIs(r))
	if err != nil {
		editError(w, err)
		return
	}
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Now().Add(uploadTimeout))
	w.Header().Set("ETag", rs.ETag)
	w.Header().Set("Content-Type", "application/gzip")
	http.ServeContent(w, r, "ruleset.tar.gz", rs.Time, bytes.NewReader(rs.Data))
}
