package httpparse

import "github.com/redirectd/redirectd/internal/ascii"

// Header is one header field line. Name is as sent (match it with ASCII
// case folding); Value has the SP and HTAB around it trimmed. Both are
// sub-slices of the buffer given to Parse.
type Header struct{ Name, Value []byte }

// Is reports whether the field is named name, ASCII case ignored: a
// parsed name is a token, which holds no other letters.
func (h *Header) Is(name string) bool { return ascii.EqualFold(h.Name, name) }

// Request is one parsed request head, filled by Parse. Every []byte field is
// a sub-slice of the buffer given to Parse (see the package doc for how long
// that stays valid). After an error its fields are unspecified.
type Request struct {
	Method []byte // as sent; case-sensitive (RFC 9110 section 9.1)
	Target []byte // raw request-target as sent
	// Path is the target up to the first '?'. For an absolute-form target
	// (http://host/path) it is just the path, "/" when empty; for
	// "OPTIONS *" it is "*". Not percent-decoded; it may start with "//".
	Path []byte
	// Query is the target after the first '?', without it; nil when the
	// target has no '?', empty but non-nil for a trailing '?'.
	Query []byte
	// Host is the authority of an absolute-form target, else the Host
	// field value; nil for an HTTP/1.0 request without either. The port is
	// included as sent; case is as sent.
	Host         []byte
	Major, Minor int // 1.1 or 1.0; anything else is an error
	Headers      []Header
	// ContentLength is the Content-Length value, -1 when absent.
	ContentLength int64
	// Chunked is Transfer-Encoding: chunked, the only coding accepted.
	Chunked bool
	// KeepAlive says whether the connection may serve another request:
	// for HTTP/1.1 unless Connection lists "close", for HTTP/1.0 only if
	// Connection lists "keep-alive" (RFC 9112 section 9.3).
	KeepAlive bool
	// ExpectContinue is Expect: 100-continue on an HTTP/1.1 request; it is
	// ignored on HTTP/1.0 (RFC 9110 section 10.1.1).
	ExpectContinue bool
	// HeadLen is the length of the head, from its first byte (including
	// empty lines skipped before the request line) through the CRLF CRLF.
	HeadLen int
}

// Parse parses the request head at the start of buf into r.
//
// It returns (r.HeadLen, nil) for a whole head; (0, nil) when buf holds only
// a valid prefix of a head and more bytes are needed; (0, err) for a
// malformed or oversized head, where err is one of the *Error values in
// errors.go. A nil lim means DefaultLimits.
//
// For example "GET /a?b HTTP/1.1\r\nHost: x\r\n\r\nGET ..." gives
// n = 30, Method "GET", Path "/a", Query "b", Host "x", KeepAlive true.
func Parse(buf []byte, r *Request, lim *Limits) (int, error) {
	return parseHead(buf, r, lim, nil)
}

// parseHead is Parse. With a non-nil pr it is ParseResume: it goes on from
// where pr says an earlier call stopped, and records where this one stops
// when the head is not complete; any other outcome leaves pr zero.
func parseHead(buf []byte, r *Request, lim *Limits, pr *Progress) (int, error) {
	l := lim.resolve()
	r.reset()
	p := parser{r: r}
	if pr != nil {
		if pr.hdr > 0 && len(buf) >= pr.seen {
			if err := p.resumeHeaders(buf, l, pr); err != nil || pr.hdr > 0 {
				return 0, errorOrNil(err)
			}
			// The head is complete: parse it from its start, which fills
			// r with slices of buf.
			r.reset()
			p = parser{r: r}
		} else if len(buf) >= pr.seen {
			p.targetEnd = pr.target
		}
		*pr = Progress{}
	}

	line := buf
	if len(line) > l.line {
		line = line[:l.line]
	}
	pos, err := p.requestLine(line)
	// More than MaxTarget target bytes in a row are a 414 whatever ends
	// them (a space, a bad byte, the end of the bytes so far), so a prefix
	// that shows them gets the same answer as the whole head, and the
	// caller need not wait for the rest of an overlong line.
	if len(r.Target) > l.target {
		return 0, ErrURITooLong
	}
	if err == errNeedMore {
		if len(buf) > l.line {
			return 0, ErrURITooLong
		}
		if pr != nil {
			*pr = Progress{seen: len(buf), target: p.targetEnd}
		}
		return 0, nil
	}
	if err != nil {
		return 0, err
	}

	head := buf
	if len(head)-pos > l.header {
		head = head[:pos+l.header]
	}
	n, err := p.headers(head, pos, l.count)
	if err == errNeedMore {
		if len(buf)-pos > l.header {
			return 0, ErrHeaderTooLarge
		}
		if pr != nil {
			pr.save(&p, pos, len(buf), len(r.Headers))
		}
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if err := p.finish(); err != nil {
		return 0, err
	}
	r.HeadLen = n
	return n, nil
}

// reset clears r for a new parse, keeping the Headers backing array so a
// reused Request does not allocate.
// Header returns the value of r's first field named name (ASCII case
// ignored), nil when it has none. A later field of the same name is not
// looked at: callers that must see every one (a list split over lines)
// walk r.Headers with Header.Is.
func (r *Request) Header(name []byte) []byte {
	for i := range r.Headers {
		if h := &r.Headers[i]; ascii.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return nil
}

func (r *Request) reset() {
	*r = Request{Headers: r.Headers[:0], ContentLength: -1}
}

// parser is the state of one Parse call; it lives on Parse's stack.
type parser struct {
	r *Request

	absHost   bool // Host came from an absolute-form target
	hostSeen  bool // a Host field line was seen
	clSeen    bool
	close     bool // Connection lists "close"
	keepAlive bool // Connection lists "keep-alive"
	expect    bool // Expect: 100-continue

	// Where the scan stopped when the bytes ran out, and where a resumed
	// scan (ParseResume) starts: targetEnd is where the target scan of
	// the request line stopped; line the start of the field line not yet
	// complete, hint how far into it the scan got.
	targetEnd int
	line      int
	hint      lineHint
}

// finish applies the checks that need the whole head.
func (p *parser) finish() *Error {
	r := p.r
	if r.Minor == 1 && !p.hostSeen {
		return ErrMissingHost
	}
	if r.Chunked && (p.clSeen || r.Minor == 0) {
		return ErrSmuggling
	}
	if r.Minor == 1 {
		r.KeepAlive = !p.close
		r.ExpectContinue = p.expect
	} else {
		r.KeepAlive = p.keepAlive && !p.close
	}
	return nil
}

// stopError classifies the byte at b[i] that ended a scan where def was
// expected to be reported: errNeedMore when i is past the end (or a CR is
// the last byte, so we cannot yet tell a bare CR from CRLF), ErrBareLF for an
// LF without CR or a CR without LF, else def.
func stopError(b []byte, i int, def *Error) *Error {
	if i >= len(b) {
		return errNeedMore
	}
	switch b[i] {
	case '\n':
		// Scans never consume CR, so the byte before this LF is not a CR.
		return ErrBareLF
	case '\r':
		if i+1 >= len(b) {
			return errNeedMore
		}
		if b[i+1] != '\n' {
			return ErrBareLF
		}
	}
	return def
}

// crlf checks for CRLF at b[i]; anything else is reported as stopError
// reports it.
func crlf(b []byte, i int, def *Error) *Error {
	if i+1 < len(b) && b[i] == '\r' && b[i+1] == '\n' {
		return nil
	}
	return stopError(b, i, def)
}
