package source

import (
	"errors"
	"fmt"
)

// Reason classifies why a fetch failed, for a metric with a small fixed
// set of labels.
type Reason string

// The reasons of Error. ReasonInvalid is not returned by this package: it
// is the caller's, for a rule set that was fetched but does not load.
const (
	ReasonNetwork  Reason = "network"   // no answer: DNS, connect, TLS, timeout, a cut body
	ReasonStatus   Reason = "status"    // an answer other than 200 or 304
	ReasonTooLarge Reason = "too_large" // over MaxBytes, or unpacking to too much
	ReasonArchive  Reason = "archive"   // a broken archive, or an entry it may not hold
	ReasonInvalid  Reason = "invalid"   // fetched, but the rules do not load
)

// Reasons lists every Reason, in the order metrics show them.
var Reasons = []Reason{ReasonNetwork, ReasonStatus, ReasonTooLarge, ReasonArchive, ReasonInvalid}

// Error is a failed fetch with its Reason.
type Error struct {
	Reason Reason
	Err    error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

func fail(r Reason, format string, args ...any) error {
	return &Error{Reason: r, Err: fmt.Errorf(format, args...)}
}

// ReasonOf returns the Reason of err: an *Error's, else ReasonInvalid,
// since anything else comes from loading what was fetched.
func ReasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ReasonInvalid
}

// ErrNoEntry is an archive without a rules TOML to start from.
var ErrNoEntry = errors.New("source: the archive holds no rules TOML: put redirectd.toml (or one .toml file) at its top level")
