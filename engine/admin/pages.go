package admin

import (
	"crypto/sha256"
	"crypto/subtle"
)

// The web console (Options.Pages) signs people in with a token typed
// into a form rather than sent as a Bearer header; these are what it
// asks of the server.

// localIdentity is who uses the admin port when no token is set: the
// port is then loopback only (New refuses anything else), and whoever
// can reach it is the operator, as for the JSON endpoints.
var localIdentity = Identity{Name: "local", Role: RoleAdmin}

// Open reports whether the server runs without a token (loopback only),
// where the console needs no sign-in.
func (s *Server) Open() bool { return s.opts.Token == "" }

// Local returns the identity of a console user when Open.
func (s *Server) Local() Identity { return localIdentity }

// Backend returns the Backend the server reports on, for the console's
// pages, which call the same methods as the JSON endpoints.
func (s *Server) Backend() Backend { return s.b }

// Identify returns the identity of token, comparing in constant time
// (SHA-256 digests of equal length, as the Bearer check does), and false
// for a token that is not configured. Without any token configured every
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
