package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// requireToken wraps next so that every request but those for /healthz must carry
// "Authorization: Bearer <token>"; others get a 401 with
// "WWW-Authenticate: Bearer" (RFC 6750, section 3). /healthz stays open
// because a load balancer or an orchestrator probes it without secrets, and
// it says nothing but "ok".
//
// The check runs before routing, so without the token even a wrong method
// or an unknown path gets 401, never a 404 or 405 that would map the
// endpoints.
func requireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || hasToken(r, &want) {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", "Bearer")
		text(w, http.StatusUnauthorized, "unauthorized\n")
	})
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
