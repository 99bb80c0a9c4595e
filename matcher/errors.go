package matcher

import (
	"errors"
	"fmt"
)

// FieldError is a problem with one field of a rule: "from", "to", "status"
// or "match".
type FieldError struct {
	Field string
	Msg   string
	// err is ErrLimit for a rule past a Limit, else nil.
	err error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

func (e *FieldError) Unwrap() error { return e.err }

// ErrLimit is what a RuleError wraps when the rule would pass a Limit:
// every further rule for that host would too, so a loader can stop there.
var ErrLimit = errors.New("matcher: rule table limit reached")

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// RuleError is a FieldError of one rule, as Compile reports it.
type RuleError struct {
	Rule Rule
	FieldError
}

func (e *RuleError) Error() string { return e.Rule.Source() + ": " + e.FieldError.Error() }

func (e *RuleError) Unwrap() error { return &e.FieldError }
