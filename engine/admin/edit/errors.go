package edit

import (
	"errors"
	"net/http"
)

// The errors of the Service and of its Editor and Versioner, each
// answered with its status (Status) by the JSON endpoints and the
// console alike: the status is declared with the error, once.
var (
	ErrNoDraft     = statusError(http.StatusNotFound, "no such draft; GET /drafts lists them")
	ErrEditRefused = statusError(http.StatusConflict, "the edit cannot be made now")
	ErrOutOfScope  = statusError(http.StatusForbidden, "the token may not edit the rules of this host")
	ErrBadEdit     = statusError(http.StatusBadRequest, "the edit is not valid")
	ErrInvalid     = statusError(http.StatusUnprocessableEntity, "the edited rules do not load")
	ErrNoRuleset   = statusError(http.StatusNotFound, "no rule-set archive: this node's rules are not edited")
	ErrQuota       = statusError(http.StatusTooManyRequests, "over the token's draft quota")
	// ErrNotDurable is a change that could not be kept on disk (its
	// version, commit or audit record: a full or failing disk); it was
	// not made, and the rules served are the ones before it.
	ErrNotDurable = statusError(http.StatusInsufficientStorage, "the change could not be made durable")
	// ErrUnknownVersion is a version that is not among those kept.
	ErrUnknownVersion = statusError(http.StatusNotFound, "no such version; GET /versions lists the versions kept")
	// ErrForbidden is an operation the caller's role or hosts do not
	// allow.
	ErrForbidden = statusError(http.StatusForbidden, "forbidden")
	// ErrBadRequest is a request missing what the operation needs.
	ErrBadRequest = statusError(http.StatusBadRequest, "bad request")
	// ErrNotEdited and ErrNoVersions are a server whose rules are not
	// edited through drafts, or that keeps no versions.
	ErrNotEdited  = statusError(http.StatusNotFound, "this server's rules are not edited here: set [admin] edits_dir to keep drafts")
	ErrNoVersions = statusError(http.StatusNotFound, "this server keeps no versions")
)

// statusErr is an error of the model with the status it is answered
// with.
type statusErr struct {
	msg    string
	status int
}

func (e *statusErr) Error() string { return e.msg }

func statusError(status int, msg string) error { return &statusErr{msg, status} }

// Status is the HTTP status err is answered with: the status of the
// model's error it wraps (the first, where it wraps several), 413 for a
// body too large, else 409 (understood, but not possible in the present
// state).
func Status(err error) int {
	var se *statusErr
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &se):
		return se.status
	case errors.As(err, &mb):
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusConflict
}
