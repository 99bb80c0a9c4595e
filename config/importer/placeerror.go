package importer

import "fmt"

// PlaceError is a syntax error or an unreadable file of an import's
// source (an nginx or Apache config), with its place: "file:line: msg",
// or "file: msg" where no line applies.
type PlaceError struct {
	File string
	Line int
	Msg  string
}

func (e *PlaceError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}
