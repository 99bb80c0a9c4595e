package edit

import (
	"errors"
	"net/http"
)

// The errors of the Service and of its Editor and Versioner, each
// answered with its status (Status) by the JSON endpoints and the
// console alike.
var (
	ErrNoDraft     = errors.New("no such draft; GET /drafts lists them")                 // 404
	ErrEditRefused = errors.New("the edit cannot be made now")                           // 409
	ErrOutOfScope  = errors.New("the token may not edit the rules of this host")         // 403
	ErrBadEdit     = errors.New("the edit is not valid")                                 // 400
	ErrInvalid     = errors.New("the edited rules do not load")                          // 422
	ErrNoRuleset   = errors.New("no rule-set archive: this node's rules are not edited") // 404
	ErrQuota       = errors.New("over the token's draft quota")                          // 429
	// ErrNotDurable is a change that could not be kept on disk (its
	// version, commit or audit record: a full or failing disk); it was
	// not made, and the rules served are the ones before it.
	ErrNotDurable = errors.New("the change could not be made durable") // 507
	// ErrUnknownVersion is a version that is not among those kept.
	ErrUnknownVersion = errors.New("no such version; GET /versions lists the versions kept") // 404
	// ErrForbidden is an operation the caller's role or hosts do not
	// allow.
	ErrForbidden = errors.New("forbidden") // 403
	// ErrBadRequest is a request missing what the operation needs.
	ErrBadRequest = errors.New("bad request") // 400
	// ErrNotEdited and ErrNoVersions are a server whose rules are not
	// edited through drafts, or that keeps no versions.
	ErrNotEdited  = errors.New("this server's rules are not edited here: set [admin] edits_dir to keep drafts") // 404
	ErrNoVersions = errors.New("this server keeps no versions")                                                 // 404
)

// Status is the HTTP status err is answered with: 404 for no such
// draft, version or archive, 403 forbidden or out of scope, 413 too
// large, 400 a bad edit or request, 422 rules that do not load, 429 over
// quota, 507 a change that could not be kept, else 409 (understood, but
// not possible in the present state).
func Status(err error) int {
	var mb *http.MaxBytesError
	switch {
	case errors.Is(err, ErrNotDurable):
		return http.StatusInsufficientStorage
	case errors.Is(err, ErrNoDraft), errors.Is(err, ErrNoRuleset), errors.Is(err, ErrUnknownVersion),
		errors.Is(err, ErrNotEdited), errors.Is(err, ErrNoVersions):
		return http.StatusNotFound
	case errors.Is(err, ErrOutOfScope), errors.Is(err, ErrForbidden):
		return http.StatusForbidden
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrBadEdit), errors.Is(err, ErrBadRequest):
		return http.StatusBadRequest
	case errors.Is(err, ErrInvalid):
		return http.StatusUnprocessableEntity
	case errors.Is(err, ErrQuota):
		return http.StatusTooManyRequests
	}
	return http.StatusConflict
}
