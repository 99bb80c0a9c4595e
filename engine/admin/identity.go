package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"slices"
	"strings"
)

// Role is what a signed-in person may do, each role allowing what the
// ones below it allow: a viewer reads, an editor also edits drafts, a
// publisher also promotes drafts and rolls back, an admin also reloads.
type Role int

// The roles, least first.
const (
	RoleViewer Role = iota + 1
	RoleEditor
	RolePublisher
	RoleAdmin
)

// String returns the role's config name: viewer, editor, publisher,
// admin.
func (r Role) String() string {
	switch r {
	case RoleViewer:
		return "viewer"
	case RoleEditor:
		return "editor"
	case RolePublisher:
		return "publisher"
	case RoleAdmin:
		return "admin"
	}
	return "none"
}

// Identity is who a token belongs to: a name for the audit trail, a
// role, and the hosts it may see and change (nil: every host).
type Identity struct {
	Name  string
	Role  Role
	Hosts []string
}

// Allows reports whether id's role is at least r.
func (id Identity) Allows(r Role) bool { return id.Role >= r }

// Scoped reports whether id sees only some hosts.
func (id Identity) Scoped() bool { return len(id.Hosts) > 0 }

// SeesHost reports whether id may see rules, misses and answers of
// host. A scoped identity sees only its hosts, never a rule without a
// host (which answers for every host, its own and others').
func (id Identity) SeesHost(host string) bool {
	if !id.Scoped() {
		return true
	}
	return host != "" && slices.Contains(id.Hosts, strings.ToLower(host))
}

// localIdentity is who uses the admin port when no token is set: the
// port is then loopback only (New refuses anything else), and whoever
// can reach it is the operator, as for the JSON endpoints.
var localIdentity = Identity{Name: "local", Role: RoleAdmin}

// Open reports whether the server runs without a token (loopback only),
// where the console needs no sign-in.
func (s *Server) Open() bool { return s.opts.Token == "" }

// Identify returns the identity of token, comparing in constant time
// (SHA-256 digests of equal length, as hasToken does), and false for a
// token that is not configured. Without any token configured every
// token is refused: Open says when no sign-in is needed.
func (s *Server) Identify(token string) (Identity, bool) {
	want := s.token.Load()
	if want == nil || token == "" {
		return Identity{}, false
	}
	got := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return Identity{}, false
	}
	return Identity{Name: "admin", Role: RoleAdmin}, true
}

// Local returns the identity of a console user when Open.
func (s *Server) Local() Identity { return localIdentity }

// Backend returns the Backend the server reports on, for the console's
// pages, which call the same methods as the JSON endpoints.
func (s *Server) Backend() Backend { return s.b }
