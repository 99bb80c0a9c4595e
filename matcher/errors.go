package matcher

import "fmt"

// FieldError is a problem with one field of a rule: "from", "to", "status"
// or "match".
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

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
