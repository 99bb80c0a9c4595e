package admin

import (
	"fmt"
	"net/http"
	"net/url"
)

// explain answers with the Backend's account of how the url query
// parameter would be answered. The query is parsed strictly: r.URL.Query
// drops a malformed pair silently, which would turn "url=%zz" into a
// confusing "missing url". The url itself is passed as given; judging it
// is the Backend's job, and its error comes back as a 400.
func (s *Server) explain(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		text(w, http.StatusBadRequest, fmt.Sprintf("cannot parse query: %v\n", err))
		return
	}
	u := q.Get("url")
	if u == "" {
		text(w, http.StatusBadRequest, "missing url: use /explain?url=http://host/path\n")
		return
	}
	out, err := s.b.Explain(u)
	if err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	text(w, http.StatusOK, line(out))
}
