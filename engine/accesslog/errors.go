package accesslog

import (
	"errors"
	"fmt"
)

// ErrClosed is returned by Reopen after Close.
var ErrClosed = errors.New("accesslog: log is closed")

// ErrUnknownFormat is wrapped by ParseFormat for a name it does not know.
var ErrUnknownFormat = errors.New(`accesslog: unknown format (want "combined", "json" or a layout of nginx log_format $variables)`)

// ErrEscape is wrapped by ParseFormatEscape for an escape it does not take.
var ErrEscape = errors.New(`accesslog: escape is "default" or "json", and only for a layout of $variables`)

// FormatError is a layout of $variables that does not compile: Offset is
// the byte of the layout where the problem is.
type FormatError struct {
	Offset int
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("byte %d of the format: %s", e.Offset+1, e.Msg)
}
