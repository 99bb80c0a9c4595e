package admin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// Diff lists at most this many rules of each kind unless ?limit says.
const defaultDiffLimit = 1000

// versionRoutes adds the versions endpoints, when the Backend is a
// Versioner: each parses its request and asks the editing model.
func (s *Server) versionRoutes(mux *http.ServeMux) {
	if !s.edit.KeepsVersions() {
		return
	}
	mux.HandleFunc("GET /versions", s.may(edit.ListVersions, func(w http.ResponseWriter, r *http.Request) {
		list, err := s.edit.Versions(*whoIs(r))
		reply(w, http.StatusOK, list, err)
	}))
	mux.HandleFunc("GET /versions/diff", s.may(edit.Diff, s.versionDiff))
	mux.HandleFunc("POST /versions/rollback", s.may(edit.Rollback, func(w http.ResponseWriter, r *http.Request) {
		q, err := versionQuery(r, "to", "message")
		if err != nil {
			text(w, http.StatusBadRequest, line(err.Error()))
			return
		}
		versionAnswer(w, func() (string, error) { return s.edit.Rollback(*whoIs(r), q.Get("to"), q.Get("message")) })
	}))
	mux.HandleFunc("POST /versions/unpin", s.may(edit.Unpin, func(w http.ResponseWriter, r *http.Request) {
		if _, err := versionQuery(r); err != nil {
			text(w, http.StatusBadRequest, line(err.Error()))
			return
		}
		versionAnswer(w, func() (string, error) { return s.edit.Unpin(*whoIs(r)) })
	}))
}

func (s *Server) versionDiff(w http.ResponseWriter, r *http.Request) {
	q, err := versionQuery(r, "from", "to", "limit")
	if err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	limit := defaultDiffLimit
	if l := q.Get("limit"); l != "" {
		if limit, err = strconv.Atoi(l); err != nil || limit < 0 {
			text(w, http.StatusBadRequest, fmt.Sprintf("cannot parse limit %q: want a number of rules, 0 or more\n", cut(l)))
			return
		}
	}
	d, err := s.edit.Diff(*whoIs(r), q.Get("from"), q.Get("to"), limit)
	reply(w, http.StatusOK, d, err)
}

// versionQuery parses r's query strictly: only the names given, each at
// most once. A misspelt name ("?too=") would otherwise be a silent default.
func versionQuery(r *http.Request, names ...string) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("cannot parse query: %w", err)
	}
	for k, vs := range q {
		known := false
		for _, n := range names {
			known = known || k == n
		}
		if !known {
			return nil, fmt.Errorf("unexpected query parameter %q; this endpoint takes %v", cut(k), names)
		}
		if len(vs) > 1 {
			return nil, fmt.Errorf("query parameter %q given %d times", k, len(vs))
		}
	}
	return q, nil
}

func versionAnswer(w http.ResponseWriter, do func() (string, error)) {
	msg, err := do()
	if err != nil {
		editError(w, err)
		return
	}
	text(w, http.StatusOK, line(msg))
}

// writeJSON answers with v, as /rules, /misses and the versions do.
func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

// writeJSONStatus answers status with v. The answers are read by people
// with curl and jq: indented, and with <, > and & in regexes readable
// rather than as \u003c.
func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // cannot happen: plain fields
		text(w, http.StatusInternalServerError, fmt.Sprintf("cannot encode: %v\n", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
