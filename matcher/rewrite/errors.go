package rewrite

import "fmt"

// Error is a problem in a Spec: the location it is in (as nginx writes
// it, "" for the server's steps), the line (of the step text, counted
// from its Spec's StepsLine; 0 when the location itself is wrong) and
// what is wrong.
type Error struct {
	// Host is the host whose Spec it is in (CompileHosts).
	Host string
	// Map is the variable (without '$') of the MapSpec it is in.
	Map      string
	Location string
	Line     int
	// Key is the LocationSpec field at fault, as the config names it:
	// "steps", "path", "upstream_uri" or "location".
	Key string
	Msg string
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Line > 0 {
		s = fmt.Sprintf("line %d: %s", e.Line, s)
	}
	if e.Map != "" {
		s = "map $" + e.Map + ": " + s
	}
	if e.Location != "" {
		s = "location " + e.Location + ": " + s
	}
	if e.Host != "" {
		s = "host " + e.Host + ": " + s
	}
	return s
}

// errAt is an *Error at line.
func errAt(line int, format string, a ...any) *Error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, a...)}
}
