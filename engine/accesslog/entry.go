package accesslog

import (
	"net/netip"
	"time"
)

// Entry is one request, as the loop knows it. Byte slices are only read
// during Append (they point into the loop's buffers).
type Entry struct {
	Time   time.Time // when the request was answered
	Client netip.Addr
	Method []byte
	Target []byte // the request target as sent
	// Path and Query are the target's path and what follows its '?';
	// Query is nil when the target has no '?'.
	Path, Query []byte
	Proto       string // "HTTP/1.1" or "HTTP/1.0"; combined lines end the request field with it
	Scheme      string // "http" or "https"
	// Host is the request's host as sent (the Host field, or the
	// authority of an absolute-form target), port and case included.
	Host      []byte
	UserAgent []byte
	Referer   []byte
	// Fields are the values of the request header fields a format of
	// $variables names with $http_NAME, in the order of Format.Fields;
	// nil for a field the request lacks.
	Fields   [][]byte
	Status   int
	Location []byte // redirects
	Upstream string // forwarded requests: the server address
	// UpstreamStatus and UpstreamTime are the upstream's status and the
	// time its exchange took, for forwarded requests (0 otherwise).
	UpstreamStatus int
	UpstreamTime   time.Duration
	Bytes          int64         // bytes of the answer sent, head included (nginx's $bytes_sent)
	BodyBytes      int64         // bytes of the answer's body sent (nginx's $body_bytes_sent)
	Duration       time.Duration // from the request's first byte to its answer
	Rule           string        // "file:line" of the matched rule, "" if none
	// ShadowRule is the "file:line" of the shadow rule that would have
	// answered, "" if none; ShadowLocation its would-be Location.
	ShadowRule     string
	ShadowLocation []byte
}

// strLen is the length of e's strings, the fields a built-in format
// prints.
func (e *Entry) strLen() int {
	return len(e.Method) + len(e.Target) + len(e.UserAgent) + len(e.Referer) + len(e.Host) +
		len(e.Location) + len(e.Upstream) + len(e.Rule) + len(e.ShadowRule) + len(e.ShadowLocation)
}
