package admin

import "errors"

// New returns these, wrapped with the offending value, so that callers can
// tell a config mistake apart with errors.Is.
var (
	// ErrTokenRequired is a listen address that is not loopback with no
	// token set: the admin endpoints would be open to the network.
	ErrTokenRequired = errors.New("admin: a listen address that is not loopback needs a token: set [admin] token or listen on 127.0.0.1")
	// ErrBadToken is a token with a byte that a Bearer credential cannot
	// carry (RFC 6750, section 2.1), such as a space or a trailing newline
	// left from the file it was pasted from.
	ErrBadToken = errors.New("admin: [admin] token may hold only letters, digits and -._~+/ (then = padding)")
	// ErrBadListen is a listen address that is not host:port.
	ErrBadListen = errors.New("admin: [admin] listen must be host:port")
)

// Programming errors of the caller, not of the config.
var (
	errNilBackend = errors.New("admin: nil Backend")
	errStarted    = errors.New("admin: server already started")
	errNotStarted = errors.New("admin: server not started, or shut down")
)
