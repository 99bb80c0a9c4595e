package accesslog

import "errors"

// ErrClosed is returned by Reopen after Close.
var ErrClosed = errors.New("accesslog: log is closed")

// ErrUnknownFormat is wrapped by ParseFormat for a name it does not know.
var ErrUnknownFormat = errors.New(`accesslog: unknown format (want "combined" or "json")`)
