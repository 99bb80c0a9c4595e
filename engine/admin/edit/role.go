package edit

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/redirectd/redirectd/internal/shorten"
)

// Role is what a token may do; each role may do what the one before it
// may, and more. What each operation needs is the table in service.go.
type Role int

// The roles, weakest first.
const (
	RoleViewer    Role = iota + 1 // see rules, drafts, versions
	RoleEditor                    // and make, edit and discard drafts
	RolePublisher                 // and promote drafts and roll back
	RoleAdmin                     // and everything else: reload, unpin
)

// roleNames are the roles' names, the one list of them, weakest first.
var roleNames = [...]string{RoleViewer: "viewer", RoleEditor: "editor", RolePublisher: "publisher", RoleAdmin: "admin"}

// ParseRole returns the role named s (viewer, editor, publisher, admin).
func ParseRole(s string) (Role, error) {
	for r, n := range roleNames {
		if n != "" && n == s {
			return Role(r), nil
		}
	}
	return 0, fmt.Errorf("%q is not a role; use %s", shorten.Text(s, 80), strings.Join(roleNames[RoleViewer:], ", "))
}

func (r Role) String() string {
	if r >= RoleViewer && int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "none"
}

// Article returns the role's name after its article ("a viewer", "an
// editor"), as the refusals that name a token's role say it.
func (r Role) Article() string {
	n := r.String()
	if strings.IndexByte("aeiou", n[0]) >= 0 {
		return "an " + n
	}
	return "a " + n
}

// Identity is who asks: the name of their token, its role and the hosts
// it is limited to (none: every host).
type Identity struct {
	Name  string
	Role  Role
	Hosts []string
}

// Scope says whether a host's rules may be seen and edited.
type Scope func(host string) bool

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

// InScope returns the items of list whose host (host gives it) who may
// see, by Allows: list itself for a token of every host, else a new
// slice (list may belong to another). The one filter of host scope for
// the JSON endpoints and the console alike.
func InScope[T any](who *Identity, list []T, host func(*T) string) []T {
	if !who.Scoped() {
		return list
	}
	out := []T{}
	for i := range list {
		if who.Allows(host(&list[i])) {
			out = append(out, list[i])
		}
	}
	return out
}

// MayExplain returns nil when id may explain raw, else ErrForbidden
// saying why: a token limited to some hosts explains only a full URL
// (https://host/path) of one of its hosts, since a path alone is
// answered as every host's. The JSON endpoint and the console both ask.
func (id *Identity) MayExplain(raw string) error {
	if !id.Scoped() {
		return nil
	}
	p, err := url.Parse(raw)
	if err != nil || p.Host == "" {
		return fmt.Errorf("%w: give a full URL (https://host/path) with one of your hosts: %s", ErrForbidden, strings.Join(id.Hosts, ", "))
	}
	if !id.Allows(p.Hostname()) {
		return fmt.Errorf("%w: your token does not cover host %s", ErrForbidden, strconv.Quote(shorten.Text(p.Hostname(), 80)))
	}
	return nil
}
