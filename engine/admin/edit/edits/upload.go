package edits

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/redirectd/redirectd/engine/admin/edit"
	"io"
	"mime"

	"github.com/redirectd/redirectd/matcher"
)

// Upload formats, by Content-Type.
const (
	TypeCSV    = "text/csv"
	TypeNDJSON = "application/x-ndjson"
)

// MaxEntries bounds one upload: a million rows, each a few hundred bytes
// once held, so an upload costs at most some hundreds of MiB.
const MaxEntries = 1_000_000

// maxLine bounds one JSON line.
const maxLine = 64 << 10

// ErrUploadType is a Content-Type that is neither CSV nor JSON lines.
var ErrUploadType = errors.New("the body must be Content-Type text/csv (the shapes `redirectd import csv` reads) or application/x-ndjson (one entry object per line)")

// ErrTooMany is an upload of more than MaxEntries entries.
var ErrTooMany = fmt.Errorf("more than %d entries: split the upload", MaxEntries)

// LineError is a line of an upload that cannot be taken.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("upload line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Parse reads an upload of contentType from r, streaming, and hands fn
// each entry with its line. A CSV row is an add (a change when a rule has
// its key: fn decides); a JSON line is an edit.Entry object. The first bad
// line ends it with a *LineError. Entries are checked (edit.Entry.Check).
func Parse(syn edit.Syntax, contentType string, r io.Reader, fn func(line int, e edit.Entry) error) error {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ErrUploadType
	}
	n := 0
	count := func(line int, e edit.Entry) error {
		if n++; n > MaxEntries {
			return &LineError{line, ErrTooMany}
		}
		if err := e.Check(syn); err != nil {
			return &LineError{line, err}
		}
		if err := fn(line, e); err != nil {
			var le *LineError
			if errors.As(err, &le) {
				return err
			}
			return &LineError{line, err}
		}
		return nil
	}
	switch mt {
	case TypeCSV:
		return parseCSV(syn, r, count)
	case TypeNDJSON, "application/jsonl", "application/json-lines":
		return parseNDJSON(r, count)
	}
	return ErrUploadType
}

func parseCSV(syn edit.Syntax, r io.Reader, fn func(int, edit.Entry) error) error {
	return syn.ReadCSV(r, func(line int, rules []matcher.Rule) error {
		for _, rl := range rules {
			e := edit.Entry{Op: edit.OpAdd, Host: rl.Host, From: rl.From, To: rl.To, Status: rl.Status, Kind: rl.Kind.String()}
			if err := fn(line, e); err != nil {
				return err
			}
		}
		return nil
	})
}

func parseNDJSON(r io.Reader, fn func(int, edit.Entry) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var e edit.Entry
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return &LineError{line, fmt.Errorf("not an entry object {\"op\",\"host\",\"from\",\"to\",\"status\"}: %v", err)}
		}
		if dec.More() {
			return &LineError{line, errors.New("more than one JSON value on the line")}
		}
		if err := fn(line, e); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &LineError{line + 1, fmt.Errorf("the line is longer than %d KiB", maxLine>>10)}
		}
		return err // the body: too large, cut short
	}
	return nil
}
