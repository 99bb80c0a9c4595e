package admin

import (
	"errors"
	"net/http"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// CallerReloader is a Backend whose reloads are recorded in an audit
// trail: POST /reload passes the caller.
type CallerReloader interface {
	ReloadBy(a edit.Audit) (string, error)
}

// reload asks the Backend to read the config again. A config error is the
// caller's to fix, so it is a 400 carrying the Backend's file:line text;
// the old config stays in force.
func (s *Server) reload(w http.ResponseWriter, r *http.Request) {
	var summary string
	var err error
	if rb, ok := s.b.(CallerReloader); ok {
		summary, err = rb.ReloadBy(edit.Audit{Author: whoIs(r).Name})
	} else {
		summary, err = s.b.Reload()
	}
	if errors.Is(err, edit.ErrNotDurable) {
		text(w, http.StatusInsufficientStorage, line(err.Error()))
		return
	}
	if err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	body := "reloaded\n"
	if summary != "" {
		body += line(summary)
	}
	text(w, http.StatusOK, body)
}
