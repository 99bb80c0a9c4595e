package admin

import "net/http"

// reload asks the Backend to read the config again. A config error is the
// caller's to fix, so it is a 400 carrying the Backend's file:line text;
// the old config stays in force.
func (s *Server) reload(w http.ResponseWriter, _ *http.Request) {
	summary, err := s.b.Reload()
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
