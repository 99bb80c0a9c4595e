package admin

import (
	"context"
	"fmt"
	"net/http"

	"github.com/redirectd/redirectd/engine/admin/edit"
)

// Token is one named token of the admin API ([[admin.tokens]]).
type Token struct {
	Name  string
	Role  edit.Role
	Token string
	// Hosts, when set, limit the token to the rules of these hosts:
	// "example.com", or "*.example.com" for its subdomains (the rules'
	// own host syntax).
	Hosts []string
}

type identityKey struct{}

// whoIs returns the identity that requireToken found for r; without
// tokens every request is the local operator, an admin.
func whoIs(r *http.Request) *edit.Identity {
	if id, ok := r.Context().Value(identityKey{}).(*edit.Identity); ok {
		return id
	}
	return &edit.Identity{Name: "local", Role: edit.RoleAdmin}
}

func withIdentity(r *http.Request, id *edit.Identity) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), identityKey{}, id))
}

// need wraps h so that only a token of role min or stronger reaches it
// (403 otherwise); with everyHost, only one not limited to some hosts
// (an endpoint whose answer or effect covers every host).
func need(min edit.Role, everyHost bool, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := whoIs(r)
		if id.Role < min {
			text(w, http.StatusForbidden, fmt.Sprintf("forbidden: token %q is %s; %s %s needs %s or more\n", id.Name, id.Role.Article(), r.Method, r.URL.Path, min))
			return
		}
		if everyHost && id.Scoped() {
			text(w, http.StatusForbidden, fmt.Sprintf("forbidden: token %q is limited to hosts %v; %s %s covers every host\n", id.Name, id.Hosts, r.Method, r.URL.Path))
			return
		}
		h(w, r)
	}
}

// forbiddenHost answers a 403 for a host outside id's.
func forbiddenHost(w http.ResponseWriter, id *edit.Identity, host string) {
	text(w, http.StatusForbidden, fmt.Sprintf("forbidden: token %q is limited to hosts %v, not %q\n", id.Name, id.Hosts, cut(host)))
}
