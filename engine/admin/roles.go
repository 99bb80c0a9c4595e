package admin

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Role is what a token may do; each role may do what the one before it
// may, and more.
type Role int

// The roles, weakest first.
const (
	RoleViewer    Role = iota + 1 // GET /rules, /explain, /misses, /versions, /drafts, /metrics
	RoleEditor                    // and make, edit and discard drafts
	RolePublisher                 // and promote drafts and roll back
	RoleAdmin                     // and everything else: /reload, /versions/unpin
)

var roleNames = map[string]Role{"viewer": RoleViewer, "editor": RoleEditor, "publisher": RolePublisher, "admin": RoleAdmin}

// ParseRole returns the role named s (viewer, editor, publisher, admin).
func ParseRole(s string) (Role, error) {
	if r, ok := roleNames[s]; ok {
		return r, nil
	}
	return 0, fmt.Errorf("admin: %q is not a role; use viewer, editor, publisher or admin", cut(s))
}

func (r Role) String() string {
	for n, v := range roleNames {
		if v == r {
			return n
		}
	}
	return "none"
}

// Token is one named token of the admin API ([[admin.tokens]]).
type Token struct {
	Name  string
	Role  Role
	Token string
	// Hosts, when set, limit the token to the rules of these hosts:
	// "example.com", or "*.example.com" for its subdomains (the rules'
	// own host syntax).
	Hosts []string
}

// Identity is who made a request: the name of its token, its role and
// the hosts it is limited to (none: every host).
type Identity struct {
	Name  string
	Role  Role
	Hosts []string
}

// Scoped reports whether id is limited to some hosts.
func (id *Identity) Scoped() bool { return len(id.Hosts) > 0 }

// Allows reports whether id may see and edit the rules of host (a
// rule's host: "", "example.com" or "*.example.com"). A token limited
// to some hosts is not allowed the rules of no host (""), which answer
// every host: editing one would reach hosts it is not given.
func (id *Identity) Allows(host string) bool {
	if !id.Scoped() {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		return false
	}
	for _, p := range id.Hosts {
		if host == p {
			return true
		}
		if suffix, ok := strings.CutPrefix(p, "*"); ok { // ".example.com"
			// a.example.com, and a rule's *.a.example.com
			if strings.HasSuffix(strings.TrimPrefix(host, "*"), suffix) && len(strings.TrimPrefix(host, "*")) > len(suffix) {
				return true
			}
		}
	}
	return false
}

type identityKey struct{}

// whoIs returns the identity that requireToken found for r; without
// tokens every request is the local operator, an admin.
func whoIs(r *http.Request) *Identity {
	if id, ok := r.Context().Value(identityKey{}).(*Identity); ok {
		return id
	}
	return &Identity{Name: "local", Role: RoleAdmin}
}

func withIdentity(r *http.Request, id *Identity) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), identityKey{}, id))
}

// need wraps h so that only a token of role min or stronger reaches it
// (403 otherwise); with everyHost, only one not limited to some hosts
// (an endpoint whose answer or effect covers every host).
func need(min Role, everyHost bool, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := whoIs(r)
		if id.Role < min {
			text(w, http.StatusForbidden, fmt.Sprintf("forbidden: token %q is a %s; %s %s needs %s or more\n", id.Name, id.Role, r.Method, r.URL.Path, min))
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
func forbiddenHost(w http.ResponseWriter, id *Identity, host string) {
	text(w, http.StatusForbidden, fmt.Sprintf("forbidden: token %q is limited to hosts %v, not %q\n", id.Name, id.Hosts, cut(host)))
}
