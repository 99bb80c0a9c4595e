package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
)

// SetToken replaces the token of a server started with one, for a reload
// that read a rotated [admin] token_file: requests with the old token get
// 401 from then on. Turning the token on or off changes which checks
// guard the endpoints (a Host check without one), so that needs a new
// Server; SetToken refuses it.
func (s *Server) SetToken(token string) error {
	if err := checkToken(token); err != nil {
		return err
	}
	if s.opts.Token == "" || token == "" {
		return errTokenMode
	}
	h := sha256.Sum256([]byte(token))
	s.token.Store(&h)
	return nil
}

var errTokenMode = errors.New("admin: a token can be replaced, not turned on or off, while serving: restart to apply")

// requireToken wraps next so that every request but the health probes
// must carry "Authorization: Bearer <token>"; others get a 401 with
// "WWW-Authenticate: Bearer" (RFC 6750, section 3). GET /healthz, /livez
// and /readyz stay open because a load balancer or an orchestrator probes
// them without secrets (a Kubernetes probe cannot read one from a
// Secret); without the token they go to probe, which says nothing but
// the status and "ok", "ready" or "not ready".
//
// With the console mounted (pages), its paths pass to next without the
// token: isPage.
//
// The check runs before routing, so without the token even a wrong method
// or an unknown path gets 401, never a 404 or 405 that would map the
// endpoints.
//
// want holds the SHA-256 of the token, swapped by SetToken when a reload
// reads a rotated token file.
func requireToken(want *atomic.Pointer[[sha256.Size]byte], next, probe http.Handler, pages bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hasToken(r, want.Load()) || pages && isPage(r) {
			next.ServeHTTP(w, r)
			return
		}
		if isProbe(r) {
			probe.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", "Bearer")
		text(w, http.StatusUnauthorized, "unauthorized\n")
	})
}

// isPage reports whether r is for the web console, which checks its own
// session cookie instead of a Bearer token (a browser cannot send one from
// a link or a form).
func isPage(r *http.Request) bool {
	return r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, "/ui/")
}

// isProbe reports whether r is a health probe, which needs no token.
func isProbe(r *http.Request) bool {
	switch r.URL.Path {
	case "/healthz", "/livez", "/readyz":
		return r.Method == http.MethodGet || r.Method == http.MethodHead
	}
	return false
}

// hasToken reports whether r's Authorization header is "Bearer" (any case,
// RFC 9110 section 11.1) and the token whose SHA-256 is want. Comparing
// hashes of equal length keeps ConstantTimeCompare from returning early on
// a length mismatch, which would tell an attacker the token's length.
func hasToken(r *http.Request, want *[sha256.Size]byte) bool {
	scheme, cred, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimLeft(cred, " ")))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}
