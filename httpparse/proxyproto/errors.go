package proxyproto

import "errors"

// Parse returns only these errors, so callers compare with == and count
// them by kind without formatting anything.
var (
	// ErrMissing: the bytes do not start with a PROXY protocol signature
	// (a client speaking HTTP directly, or a proxy not configured to send
	// the header).
	ErrMissing = errors.New("proxyproto: no PROXY protocol header")
	// ErrMalformed: the bytes start with a signature but are not a header
	// this package accepts: a bad token, address, port, command, family or
	// length, a version 1 line longer than MaxV1, or a version 2 body over
	// MaxV2Body.
	ErrMalformed = errors.New("proxyproto: malformed PROXY protocol header")
)
