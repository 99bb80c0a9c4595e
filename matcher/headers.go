package matcher

import (
	"sort"
	"strings"

	"github.com/redirectd/redirectd/internal/ascii"
)

// Header is one response header field a rule (or the server) adds to the
// answers it writes.
type Header struct {
	Name, Value string
}

// HasLocation reports whether status is answered with a Location (the
// redirects) rather than with a short text body (410 Gone, 451
// Unavailable For Legal Reasons).
func HasLocation(status int) bool {
	return status != 410 && status != 451
}

// StatusText is the body of an answer without a Location: one line naming
// the status, so that a person who meets it knows it is meant.
func StatusText(status int) string {
	switch status {
	case 410:
		return "gone\n"
	case 451:
		return "unavailable for legal reasons\n"
	}
	return ""
}

// reservedHeaders are the fields the server writes itself for every
// answer: a configured one would contradict them or break the framing.
var reservedHeaders = []string{"Content-Length", "Transfer-Encoding", "Connection", "Location", "Date",
	"Content-Type", "Keep-Alive", "Upgrade", "Trailer"}

// CheckHeader says what is wrong with a configured header field, or nil:
// the name must be an RFC 9110 token and not one the server writes
// itself, the value free of control characters (a CR or LF would let a
// config split the answer).
func CheckHeader(name, value string) error {
	if name == "" {
		return fieldErr("headers", "a field name is empty")
	}
	for i := 0; i < len(name); i++ {
		if !ascii.TokenChar(name[i]) {
			return fieldErr("headers", "field name %q holds %q, which RFC 9110 does not allow in a name; use letters, digits and !#$%%&'*+-.^_`|~", name, name[i])
		}
	}
	for _, r := range reservedHeaders {
		if strings.EqualFold(name, r) {
			return fieldErr("headers", "%q is written by the server itself for every answer; leave it out", name)
		}
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; ascii.IsControl(c) && c != '\t' {
			return fieldErr("headers", "the value of %q holds a control character at byte %d; a field value is one line of visible characters", name, i)
		}
	}
	if strings.TrimSpace(value) != value {
		return fieldErr("headers", "the value of %q starts or ends with white space, which clients strip; leave it out", name)
	}
	return nil
}

// MergeHeaders returns own with every field of base whose name own does
// not hold (compared without case): a rule's headers win over the
// server's of the same name.
func MergeHeaders(own, base []Header) []Header {
	if len(own) == 0 {
		return base
	}
	out := append([]Header(nil), own...)
next:
	for _, b := range base {
		for _, o := range own {
			if strings.EqualFold(o.Name, b.Name) {
				continue next
			}
		}
		out = append(out, b)
	}
	return out
}

// SortHeaders orders fields by name, keeping the order of those of one
// name, so that an answer's fields do not depend on a map's order.
func SortHeaders(hs []Header) {
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].Name < hs[j].Name })
}

// headerBlock checks hs and returns them as the lines of an answer's head,
// each ending in CRLF, so that an answer appends them in one copy.
func headerBlock(hs []Header) (string, error) {
	var b strings.Builder
	for _, h := range hs {
		if err := CheckHeader(h.Name, h.Value); err != nil {
			return "", err
		}
		b.WriteString(h.Name)
		b.WriteString(": ")
		b.WriteString(h.Value)
		b.WriteString("\r\n")
	}
	return b.String(), nil
}

// Headers returns the header lines of the matched rule (its own merged
// with the server's, as the config gave them), or "" for a rule without:
// the answer then carries the Set's (Set.Headers).
func (m *Match) Headers() string {
	if m.pk != nil || m.lx != nil || m.rule == nil {
		return "" // packed and lowered rules have no headers
	}
	return m.rule.hdr
}

// SetHeaders sets the header lines of every answer the server writes that
// no rule with headers decides: rules without headers, misses. They are
// the Set's so that they change with the rules on a reload.
func (s *Set) SetHeaders(hs []Header) error {
	b, err := headerBlock(hs)
	if err != nil {
		return err
	}
	s.headers, s.headerList = b, append([]Header(nil), hs...)
	return nil
}

// HeaderFields returns the fields SetHeaders set, to load another
// version of the rules with the same (the slice is only read).
func (s *Set) HeaderFields() []Header {
	if s == nil {
		return nil
	}
	return s.headerList
}

// Headers returns the lines SetHeaders set, each ending in CRLF.
func (s *Set) Headers() string {
	if s == nil {
		return ""
	}
	return s.headers
}

// intern returns the one copy of block the Builder keeps, so that rules
// with the same headers (a map's, a CSV's) share it.
func (b *Builder) intern(block string) string {
	if b.hdrs == nil {
		b.hdrs = make(map[string]string)
	}
	if s, ok := b.hdrs[block]; ok {
		return s
	}
	b.hdrs[block] = block
	return block
}
