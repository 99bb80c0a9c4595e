package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/engine/admin"
	"github.com/redirectd/redirectd/engine/admin/edit"
)

type explainData struct {
	URL, Headers, Client string
	Out, Err             string
}

// maxHeaderLines bounds the header fields an explain form may give.
const maxHeaderLines = 50

// explainPage explains ?url= for a request with ?headers= (one "Name:
// value" a line) from ?client=, as GET /explain does. A scoped token
// must name one of its hosts in the URL: the answer would otherwise show
// another host's rules.
func (c *Console) explainPage(w http.ResponseWriter, r *http.Request, u *user) {
	q := r.URL.Query()
	d := explainData{URL: q.Get("url"), Headers: q.Get("headers"), Client: q.Get("client")}
	if d.URL == "" {
		c.render(w, http.StatusOK, "explain", "Explain a URL", u, d)
		return
	}
	status := http.StatusOK
	if err := explainScope(u.who, d.URL); err != "" {
		d.Err, status = err, http.StatusForbidden
	} else {
		var hs []string
		for _, l := range strings.Split(d.Headers, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				hs = append(hs, l)
			}
		}
		if len(hs) > maxHeaderLines {
			d.Err, status = "give at most "+strconv.Itoa(maxHeaderLines)+" header fields", http.StatusBadRequest
		} else if out, err := c.b.Explain(d.URL, admin.ExplainRequest{Headers: hs, Client: strings.TrimSpace(d.Client)}); err != nil {
			d.Err, status = err.Error(), http.StatusBadRequest
		} else {
			d.Out = out
		}
	}
	c.render(w, status, "explain", "Explain a URL", u, d)
}

// explainScope says why who may not explain raw (edit.Identity's
// MayExplain), "" when it may.
func explainScope(who edit.Identity, raw string) string {
	if err := who.MayExplain(raw); err != nil {
		return strings.TrimPrefix(err.Error(), edit.ErrForbidden.Error()+": ")
	}
	return ""
}
