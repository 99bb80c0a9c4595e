package admin

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// explain answers with the Backend's account of how the url query
// parameter would be answered. The query is parsed strictly: r.URL.Query
// drops a malformed pair silently, which would turn "url=%zz" into a
// confusing "missing url"; checkExplainQuery then refuses what is most
// likely an unescaped url. The url itself is passed as given; judging it
// is the Backend's job, and its error comes back as a 400.
func (s *Server) explain(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		text(w, http.StatusBadRequest, fmt.Sprintf("cannot parse query: %v\n", err))
		return
	}
	if err := checkExplainQuery(q); err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	u := q.Get("url")
	if err := whoIs(r).MayExplain(u); err != nil {
		text(w, http.StatusForbidden, line(err.Error()))
		return
	}
	out, err := s.b.Explain(u, ExplainRequest{Headers: q["header"], Client: q.Get("client")})
	if err != nil {
		text(w, http.StatusBadRequest, line(err.Error()))
		return
	}
	text(w, http.StatusOK, line(out))
}

// checkExplainQuery requires exactly one non-empty url, and allows only
// header (repeated) and at most one client beside it. Another key or a
// second url almost always means the url was pasted unescaped: "?url=http://a/p?x=1&y=2" parses as url=http://a/p?x=1
// and y=2, and explaining the shortened url would be a wrong answer that
// looks right.
func checkExplainQuery(q url.Values) error {
	const hint = "percent-encode it: curl -G --data-urlencode url=http://host/path?query"
	for k := range q {
		if k != "url" && k != "header" && k != "client" {
			return fmt.Errorf("unexpected query parameter %q: if it belongs to the url, %s; header=Name:value and client=IP describe the request", cut(k), hint)
		}
	}
	if len(q["client"]) > 1 {
		return errors.New("more than one client: give one IP address")
	}
	switch us := q["url"]; {
	case len(us) == 0 || us[0] == "":
		return errors.New("missing url: " + hint)
	case len(us) > 1:
		return errors.New("more than one url: " + hint)
	}
	return nil
}
