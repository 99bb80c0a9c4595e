package admin

import (
	"net/http"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// routes returns the admin endpoints. ServeMux method patterns give the
// 405s for free: "GET /x" also matches HEAD, and any other method gets
// 405 Method Not Allowed with an Allow header listing the ones that match.
//
// CrossOriginProtection rejects a POST that a browser sends from another
// origin (403): without a token, a web page the operator visits could
// otherwise make the browser POST a form to http://127.0.0.1:9180/reload.
// curl and other tools send neither Sec-Fetch-Site nor Origin and pass.
//
// Each endpoint but the probes needs a role (need): with no tokens set,
// every request is the local operator's, an admin's.
//
// Without a token, a Host that is not loopback gets 421 before anything
// else (requireLoopbackHost): a DNS-rebinding page's requests are
// same-origin, so CrossOriginProtection alone would let it read /rules.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", need(edit.RoleViewer, true, s.metrics))
	mux.HandleFunc("GET /healthz", healthz)
	mux.HandleFunc("GET /livez", healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.HandleFunc("GET /rules", need(edit.RoleViewer, false, s.rules))
	mux.HandleFunc("GET /explain", need(edit.RoleViewer, false, s.explain))
	mux.HandleFunc("GET /misses", need(edit.RoleViewer, false, s.misses))
	mux.HandleFunc("POST /reload", need(edit.RoleAdmin, true, s.reload))
	s.versionRoutes(mux)
	s.draftRoutes(mux)
	if s.pages != nil {
		mux.Handle("/{$}", s.pages)
		mux.Handle("/ui/", s.pages)
	}
	var h http.Handler = http.NewCrossOriginProtection().Handler(mux)
	if s.opts.hasTokens() {
		probes := http.NewServeMux()
		probes.HandleFunc("GET /healthz", healthz)
		probes.HandleFunc("GET /livez", healthz)
		probes.HandleFunc("GET /readyz", s.quietReadyz)
		h = requireToken(&s.token, h, probes, s.pages != nil)
	} else {
		h = requireLoopbackHost(h)
	}
	if wait := s.opts.Wait; wait != nil {
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-wait:
			case <-r.Context().Done():
				return // the client left
			}
			next.ServeHTTP(w, r)
		})
	}
	return h
}

// text answers with status and a plain-text body. nosniff because /explain
// and the error answers carry text derived from the request, which a
// browser must never sniff as HTML.
func text(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write([]byte(body))
}
