package forward

import (
	"bytes"
	"iter"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/redirectd/redirectd/httpparse"
)

// Answer is what AppendAnswerFields adds to, or takes from, an
// upstream's answer for the client.
type Answer struct {
	// Own are the server's own field lines for the answer ("Name:
	// value\r\n" each): the TLS port's Strict-Transport-Security, or
	// the Vary an https redirect's conditions add.
	Own string
	// OwnHSTS says Own holds the TLS port's Strict-Transport-Security,
	// which replaces the upstream's.
	OwnHSTS bool
	// Vary is the Vary line of the rule conditions that failed before
	// the request became a miss: a cache must key the answer on those
	// fields too.
	Vary string
	// Dropped, when set, counts the fields left out as invalid
	// (redirectd_upstream_fields_dropped_total).
	Dropped interface{ Inc() }
}

// AppendAnswerFields is the header policy of every answer relayed from
// an upstream, on HTTP/1.1 and HTTP/2, a tunnel's 101 included: the one
// place to change what forwarded answers carry. It appends to head the
// upstream's fields less the hop-by-hop ones (IsHopByHop) and
// Content-Length (the caller frames the body), each checked by
// AppendField; the upstream's Strict-Transport-Security left out when
// the server sends its own; a's Vary (a second Vary line adds to the
// upstream's, RFC 9110 5.3); and a's own fields. A 101 (upgrade) keeps
// its Connection and Upgrade: they are the switch.
func AppendAnswerFields(head []byte, fields iter.Seq2[[]byte, []byte], upgrade bool, a *Answer) []byte {
	// a is read here, not in the loop bodies: they are closures passed
	// to fields, and a captured there would move the caller's Answer to
	// the heap.
	hsts, dropped := a.OwnHSTS, a.Dropped
	var connTokens []byte
	for k, v := range fields {
		if bytes.EqualFold(k, []byte("connection")) {
			connTokens = append(append(connTokens, v...), ',')
		}
	}
	for k, v := range fields {
		switch {
		case upgrade && (bytes.EqualFold(k, []byte("connection")) || bytes.EqualFold(k, []byte("upgrade"))):
		case IsHopByHop(k, connTokens), bytes.EqualFold(k, []byte("content-length")),
			hsts && bytes.EqualFold(k, []byte("strict-transport-security")):
			continue
		}
		var ok bool
		if head, ok = AppendField(head, k, v); !ok && dropped != nil {
			dropped.Inc()
		}
	}
	head = append(head, a.Vary...)
	return append(head, a.Own...)
}

// AppendField appends an upstream answer's field to head if its name is
// a token and its value holds only field-value bytes, the checks a
// client's fields pass, and reports whether it did: a field that fails
// them is left out, so that no byte an upstream sends can start a field
// or an answer of its own.
func AppendField(head, k, v []byte) ([]byte, bool) {
	if !httpparse.ValidToken(k) || !httpparse.ValidFieldValue(v) {
		return head, false
	}
	return append(append(append(append(head, k...), ": "...), v...), "\r\n"...), true
}

// AppendStatusLine appends an HTTP/1.1 status line for an upstream's
// answer: the code, and its reason if every byte of it is one a reason
// may hold (else, or when empty, the standard text). Written from the
// code, never copied: a bare CR in a reason ("403 Forbidden\rSet-Cookie:
// ...") reads as a line end to some clients.
func AppendStatusLine(head []byte, code int, reason []byte) []byte {
	head = append(head, "HTTP/1.1 "...)
	head = strconv.AppendInt(head, int64(code), 10)
	head = append(head, ' ')
	if len(reason) == 0 || !httpparse.ValidReason(reason) {
		head = append(head, fasthttp.StatusMessage(code)...)
	} else {
		head = append(head, reason...)
	}
	return append(head, "\r\n"...)
}

// HeadLen is the length of the answer head at the start of p, all of p
// when it holds no head end: the access log tells an answer's body bytes
// from its head's by it.
func HeadLen(p []byte) int {
	if i := bytes.Index(p, []byte("\r\n\r\n")); i >= 0 {
		return i + 4
	}
	return len(p)
}
