package admin

import "github.com/redirectd/redirectd/engine/admin/edit"

// The web console (Options.Pages) signs people in with a token typed
// into a form rather than sent as a Bearer header; these are what it
// asks of the server.

// localIdentity is who uses the admin port when no token is set: the
// port is then loopback only (New refuses anything else), and whoever
// can reach it is the operator, as for the JSON endpoints (whoIs).
var localIdentity = edit.Identity{Name: "local", Role: edit.RoleAdmin}

// Open reports whether the server runs without tokens (loopback only),
// where the console needs no sign-in.
func (s *Server) Open() bool { return !s.opts.hasTokens() }

// Local returns the identity of a console user when Open.
func (s *Server) Local() edit.Identity { return localIdentity }

// Backend returns the Backend the server reports on, for the console's
// pages, which call the same methods as the JSON endpoints.
func (s *Server) Backend() Backend { return s.b }

// Identify returns the identity of token, compared with every token in
// constant time as a Bearer token is (tokenTable.find), and false for a
// token that is not configured. Without tokens every token is refused:
// Open says when no sign-in is needed.
func (s *Server) Identify(token string) (edit.Identity, bool) {
	t := s.token.Load()
	if t == nil || token == "" {
		return edit.Identity{}, false
	}
	id := t.find(token)
	if id == nil {
		return edit.Identity{}, false
	}
	return *id, true
}

// Edit returns the editing model the JSON endpoints ask, for the
// console's pages to ask the same.
func (s *Server) Edit() *edit.Service { return s.edit }

// MaxUpload is the most bytes a draft upload may hold ([admin]
// max_upload_bytes), for the console's upload form.
func (s *Server) MaxUpload() int64 { return s.opts.MaxUploadBytes }
