package admin

import (
	"strings"
)

// Role is what a token may do; each role may do what the one before it
// may, and more.
type Role int

// The roles, weakest first.
const (
	RoleViewer    Role = iota + 1 // read every page and endpoint
	RoleEditor                    // and make, edit and discard drafts
	RolePublisher                 // and promote drafts and roll back
	RoleAdmin                     // and everything else: /reload
)

var roleNames = map[string]Role{"viewer": RoleViewer, "editor": RoleEditor, "publisher": RolePublisher, "admin": RoleAdmin}

func (r Role) String() string {
	for n, v := range roleNames {
		if v == r {
			return n
		}
	}
	return "none"
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
			h := strings.TrimPrefix(host, "*")
			if strings.HasSuffix(h, suffix) && len(h) > len(suffix) {
				return true
			}
		}
	}
	return false
}
