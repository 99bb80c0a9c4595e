// Package shorten cuts a text quoted back in a message (an error, a log
// line) to a given length and marks the cut, so that a pasted file or a
// long value cannot flood a terminal or a log.
package shorten

// Text returns s when it is at most max bytes long, else its first max
// bytes followed by "...". The cut counts bytes, not characters: it may
// split a UTF-8 sequence, which %q then shows escaped.
func Text(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
