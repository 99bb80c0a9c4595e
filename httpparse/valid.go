package httpparse

import "github.com/redirectd/redirectd/internal/ascii"

// ValidToken reports whether b is an RFC 9110 token (a field name, a
// method): what the parser accepts from a client as one.
func ValidToken(b []byte) bool { return ascii.IsToken(b) }

// ValidFieldValue reports whether b holds only the bytes the parser
// accepts in a client's field value: visible ASCII, obs-text, SP and HTAB.
// No CR, LF, NUL or other control byte, so a value written after a name
// and ": " stays one field.
func ValidFieldValue(b []byte) bool {
	for _, c := range b {
		if !valueTable[c] {
			return false
		}
	}
	return true
}

// ValidReason reports whether b may stand as a status line's reason
// phrase: *( HTAB / SP / VCHAR / obs-text ) (RFC 9112 section 4), the
// bytes of a field value.
func ValidReason(b []byte) bool { return ValidFieldValue(b) }
