package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/internal/plural"
)

// Error is one problem in a configuration, located as precisely as it can be.
type Error struct {
	File string
	Line int    // 0 when unknown
	What string // the table, rule or map entry, e.g. `[[rule]] #3`
	Key  string // the offending key, when there is one
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.What != "" {
		b.WriteString(e.What)
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxErrors bounds how many problems one load reports, so that a broken
// million-line map file does not print a million lines.
const maxErrors = 20

// errorList gathers the problems of one load.
type errorList struct {
	errs    []error
	dropped int
}

func (l *errorList) add(err error) {
	if len(l.errs) >= maxErrors {
		l.dropped++
		return
	}
	l.errs = append(l.errs, err)
}

func (l *errorList) full() bool { return len(l.errs) >= maxErrors }

func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	if l.dropped > 0 {
		l.errs = append(l.errs, errors.New("and "+plural.Count(l.dropped, "more error")))
	}
	return errors.Join(l.errs...)
}

// unwrapPath drops the path an *fs.PathError repeats: the message names the file
// itself, with the key it came from.
func unwrapPath(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
