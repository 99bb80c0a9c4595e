package accesslog

import (
	"net/netip"
	"time"
)

// Entry is one request, as the loop knows it. Byte slices are only read
// during Append (they point into the loop's buffers).
type Entry struct {
	Time      time.Time // when the request was answered
	Client    netip.Addr
	Method    []byte
	Target    []byte
	Proto     string // "HTTP/1.1" or "HTTP/1.0"; combined lines end the request field with it
	UserAgent []byte
	Referer   []byte
	Status    int
	Location  []byte        // redirects
	Upstream  string        // forwarded requests: the server address
	Bytes     int64         // bytes of the answer sent
	Duration  time.Duration // time taken to answer
	Rule      string        // "file:line" of the matched rule, "" if none
	// ShadowRule is the "file:line" of the shadow rule that would have
	// answered, "" if none; ShadowLocation its would-be Location.
	ShadowRule     string
	ShadowLocation []byte
}

// maxLen bounds the length of e's line in either format: each byte of a
// string can grow to at most 6 ("\u00XX", "\ufffd"), plus the fixed parts.
// Append uses it to hand a buffer over before an entry would make it grow.
func (e *Entry) maxLen() int {
	const fixed = 512 // keys, punctuation, time, address, numbers
	n := len(e.Method) + len(e.Target) + len(e.UserAgent) + len(e.Referer) +
		len(e.Location) + len(e.Upstream) + len(e.Rule) + len(e.ShadowRule) + len(e.ShadowLocation)
	return fixed + 6*n
}
