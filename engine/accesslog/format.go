package accesslog

import "fmt"

// Format is the layout of a log line; the package doc shows both with an
// example line.
type Format uint8

const (
	// Combined is nginx's combined format with location, duration and rule
	// appended.
	Combined Format = iota
	// JSON is one JSON object per line.
	JSON
)

// ParseFormat turns the config's format name into a Format: "combined" (also
// "", the default) or "json".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "combined":
		return Combined, nil
	case "json":
		return JSON, nil
	}
	return 0, fmt.Errorf("cannot parse access log format %q: %w", cut(s), ErrUnknownFormat)
}

// String returns the name ParseFormat accepts.
func (f Format) String() string {
	switch f {
	case Combined:
		return "combined"
	case JSON:
		return "json"
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// cut shortens user input quoted in an error so a pasted file cannot flood
// the terminal.
func cut(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}
