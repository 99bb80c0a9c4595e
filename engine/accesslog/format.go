package accesslog

import (
	"fmt"
	"strings"

	"github.com/redirectd/redirectd/internal/shorten"
)

// Format is the layout of a log line: one of the built-in Combined and
// JSON (the package doc shows both with an example line), or a layout of
// nginx log_format $variables compiled by ParseFormat. The zero Format is
// Combined.
type Format struct {
	kind kind
	t    *template // the compiled layout when kind is custom
}

type kind uint8

const (
	combinedKind kind = iota
	jsonKind
	customKind
)

var (
	// Combined is nginx's combined format with location, duration, rule
	// and host appended.
	Combined = Format{kind: combinedKind}
	// JSON is one JSON object per line.
	JSON = Format{kind: jsonKind}
)

// ParseFormat turns the config's format into a Format: "combined" (also
// "", the default), "json", or a layout of nginx log_format $variables
// ("$remote_addr - $remote_user [$time_local] \"$request\" ..."), escaped
// as nginx's escape=default does. A layout is compiled here, once: an
// unknown variable is an error (a *FormatError), never a "-" on every
// line.
func ParseFormat(s string) (Format, error) {
	return ParseFormatEscape(s, "")
}

// ParseFormatEscape is ParseFormat with nginx's escape parameter for a
// layout of $variables: "default" (also "") or "json". A built-in format
// takes no escape.
func ParseFormatEscape(s, escape string) (Format, error) {
	switch s {
	case "", "combined", "json":
		if escape != "" {
			return Format{}, fmt.Errorf("escape %q applies only to a format of $variables, not to %q: %w", cut(escape), s, ErrEscape)
		}
		if s == "json" {
			return JSON, nil
		}
		return Combined, nil
	}
	if !strings.Contains(s, "$") {
		return Format{}, fmt.Errorf("cannot parse access log format %q: %w", cut(s), ErrUnknownFormat)
	}
	json := false
	switch escape {
	case "", "default":
	case "json":
		json = true
	default:
		return Format{}, fmt.Errorf("escape %q: %w", cut(escape), ErrEscape)
	}
	t, err := compile(s, json)
	if err != nil {
		return Format{}, err
	}
	return Format{kind: customKind, t: t}, nil
}

// Fields returns the names of the request header fields that the layout
// reads with $http_NAME beyond $http_user_agent, $http_referer and
// $http_host, lower-case with '_' for '-' as nginx spells them; the
// server fills Entry.Fields with their values in this order. Nil for a
// built-in format.
func (f Format) Fields() []string {
	if f.t == nil {
		return nil
	}
	return f.t.fields
}

// String returns the name or layout ParseFormat accepts.
func (f Format) String() string {
	switch f.kind {
	case combinedKind:
		return "combined"
	case jsonKind:
		return "json"
	}
	return f.t.src
}

// cut shortens user input quoted in an error so a pasted file cannot flood
// the terminal.
func cut(s string) string { return shorten.Text(s, 40) }
