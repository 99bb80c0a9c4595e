package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// tokenTable is every token the server takes: the SHA-256 of each with
// whose it is. The unnamed [admin] token, when set, is the first, an
// admin named "admin".
type tokenTable []tokenEntry

type tokenEntry struct {
	sum [sha256.Size]byte
	id  *edit.Identity
}

// newTokenTable hashes the tokens of opts.
func newTokenTable(token string, named []Token) *tokenTable {
	var t tokenTable
	if token != "" {
		t = append(t, tokenEntry{sha256.Sum256([]byte(token)), &edit.Identity{Name: "admin", Role: edit.RoleAdmin}})
	}
	for _, n := range named {
		t = append(t, tokenEntry{sha256.Sum256([]byte(n.Token)), &edit.Identity{Name: n.Name, Role: n.Role, Hosts: n.Hosts}})
	}
	return &t
}

// SetToken replaces the token of a server started with one, for a reload
// that read a rotated [admin] token_file: requests with the old token get
// 401 from then on. Turning the token on or off changes which checks
// guard the endpoints (a Host check without one), so that needs a new
// Server; SetToken refuses it. The named tokens stay as they are.
func (s *Server) SetToken(token string) error {
	if err := checkToken(token); err != nil {
		return err
	}
	if s.opts.Token == "" || token == "" {
		return errTokenMode
	}
	s.token.Store(newTokenTable(token, s.opts.Tokens))
	return nil
}

var errTokenMode = errors.New("admin: a token can be replaced, not turned on or off, while serving: restart to apply")

// requireToken wraps next so that every request but the health probes
// must carry "Authorization: Bearer <token>" with one of the tokens;
// others get a 401 with "WWW-Authenticate: Bearer" (RFC 6750, section
// 3). The request goes on with the token's Identity (whoIs). GET
// /healthz, /livez and /readyz stay open because a load balancer or an
// orchestrator probes them without secrets (a Kubernetes probe cannot
// read one from a Secret); without the token they go to probe, which
// says nothing but the status and "ok", "ready" or "not ready".
//
// With the console mounted (pages), its paths pass to next without the
// token: isPage.
//
// The check runs before routing, so without the token even a wrong method
// or an unknown path gets 401, never a 404 or 405 that would map the
// endpoints.
//
// want holds the tokens' hashes, swapped by SetToken when a reload reads
// a rotated token file.
func requireToken(want *atomic.Pointer[tokenTable], next, probe http.Handler, pages bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := findToken(r, *want.Load()); id != nil {
			next.ServeHTTP(w, withIdentity(r, id))
			return
		}
		if pages && isPage(r) {
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

// findToken returns the identity of r's token when its Authorization
// header is "Bearer" (any case, RFC 9110 section 11.1) and one of the
// tokens, else nil. Hashes of equal length are compared, so
// ConstantTimeCompare never returns early on a length mismatch (which
// would tell the token's length), and every token is compared whatever
// matched, with no branch on the result, so the time taken does not say
// which token, or how many, came before the one that matched.
func findToken(r *http.Request, tokens tokenTable) *edit.Identity {
	scheme, cred, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	return tokens.find(strings.TrimLeft(cred, " "))
}

// find returns the identity of token, or nil, in the constant time
// findToken describes; the console's sign-in form asks it too.
func (tokens tokenTable) find(token string) *edit.Identity {
	got := sha256.Sum256([]byte(token))
	match := -1
	for i := range tokens {
		eq := subtle.ConstantTimeCompare(got[:], tokens[i].sum[:])
		match = subtle.ConstantTimeSelect(eq, i, match)
	}
	if match < 0 {
		return nil
	}
	return tokens[match].id
}
