package httpparse

import (
	"unicode/utf8"

	"github.com/redirectd/redirectd/internal/ascii"
)

// Progress is what ParseResume knows of a head that is not complete yet,
// carried from one call to the next: where its scan stopped, and what the
// field lines before that point said that later lines are checked against
// (the number of lines, Host and Content-Length seen, chunked coding). Its
// zero value starts a new head; ParseResume sets it back to zero when it
// returns a whole head or an error. A caller keeps one per connection,
// beside the Request; it holds no slice of the buffer.
type Progress struct {
	seen   int // len(buf) at the last call
	target int // where the scan of the request-target stopped; 0: not reached
	// hdr is the offset of the first field line once the request line is
	// complete (0: it is not); line and hint say where in the field lines
	// the scan stopped (see lineHint).
	hdr, line int
	hint      lineHint
	count     int
	hostSeen  bool
	clSeen    bool
	chunked   bool
	cl        int64
}

// ParseResume is Parse for bytes that arrive a little at a time: after a
// (0, nil) answer, the next call with the same head and more bytes after
// it scans only from where the last one stopped, so a head sent a byte per
// segment costs its length once rather than once per byte (a 73 KiB head dribbled a byte per read took 0.65 s of parsing).
//
// Its answer is Parse's for the same buf, whatever pieces the head came
// in: the scan goes on from the start of the field line that was not
// complete (and from within it: its name, or how much of its value was
// scanned), with the state the lines before it left (Host seen,
// Content-Length, chunked coding, the number of lines). A complete head
// is then parsed once more from its start, to fill r with slices of this
// buf. After a (0, nil) answer r's fields are unspecified, as after an
// error.
//
// buf must begin with the bytes given to the previous call with pr, as a
// connection's buffer does while a partial head waits in it; a shorter
// buf starts over. A caller that drops or replaces those bytes (the
// connection is reused for something else) sets *pr to zero.
func ParseResume(buf []byte, r *Request, lim *Limits, pr *Progress) (int, error) {
	return parseHead(buf, r, lim, pr)
}

// resumeHeaders goes on with the field lines where pr says an earlier call
// stopped. It leaves pr.hdr set when the head is still not complete, and
// zero when it is or on an error, which it returns.
func (p *parser) resumeHeaders(buf []byte, l resolved, pr *Progress) *Error {
	hdr, count := pr.hdr, pr.count
	p.hostSeen, p.clSeen = pr.hostSeen, pr.clSeen
	p.r.ContentLength, p.r.Chunked = pr.cl, pr.chunked
	head := buf
	if len(head)-hdr > l.header {
		head = head[:hdr+l.header]
	}
	pos, err := pr.line, (*Error)(nil)
	if pr.hint != (lineHint{}) {
		pos, err = p.finishLine(head, pos, pr.hint, l.count-count)
	}
	if err == nil {
		_, err = p.headers(head, pos, l.count-count)
	}
	count += len(p.r.Headers)
	*pr = Progress{}
	switch {
	case err == errNeedMore && len(buf)-hdr > l.header:
		return ErrHeaderTooLarge
	case err == errNeedMore:
		pr.save(p, hdr, len(buf), count)
		return nil
	}
	return err
}

// finishLine parses the field line at b[pos:] that an earlier call left
// incomplete, h saying how far that call got into it, as headers parses a
// line, and returns the offset of the next line. headers has the same
// steps; they are not shared so that its loop, the hot path, stays as it
// was measured.
func (p *parser) finishLine(b []byte, pos int, h lineHint, maxCount int) (int, *Error) {
	colon := h.colon
	if colon == 0 {
		i := max(pos, h.scanned)
		for i < len(b) && ascii.TokenChar(b[i]) {
			i++
		}
		if i == pos || i >= len(b) || b[i] != ':' {
			p.stop(pos, lineHint{scanned: i})
			return 0, stopError(b, i, ErrBadHeader)
		}
		colon, h = i, lineHint{}
	}
	// OWS and value bytes after the colon: SP and HTAB are value bytes
	// too, so the scan goes on from where it stopped, whether that was in
	// the OWS or in the value; the OWS is trimmed after.
	i, high := scanValue(b, max(colon+1, h.scanned))
	high = high || h.high
	if err := crlf(b, i, ErrBadHeader); err != nil {
		p.stop(pos, lineHint{colon: colon, scanned: i, high: high})
		return 0, err
	}
	name, value := b[pos:colon], trimOWS(b[colon+1:i])
	if high && !utf8.Valid(value) {
		return 0, ErrBadHeader
	}
	if len(p.r.Headers) >= maxCount {
		return 0, ErrHeaderTooLarge
	}
	p.r.Headers = append(p.r.Headers, Header{Name: name, Value: value})
	if err := p.field(name, value); err != nil {
		return 0, err
	}
	return i + 2, nil
}

// save records where p stopped in the field lines that start at hdr, for
// a buffer of seen bytes, after count field lines.
func (pr *Progress) save(p *parser, hdr, seen, count int) {
	*pr = Progress{
		seen: seen, hdr: hdr, line: p.line, hint: p.hint,
		count: count, hostSeen: p.hostSeen, clSeen: p.clSeen,
		chunked: p.r.Chunked, cl: p.r.ContentLength,
	}
}

// errorOrNil returns err as an error, nil for a nil *Error (a nil *Error
// in an error interface is not nil).
func errorOrNil(err *Error) error {
	if err == nil {
		return nil
	}
	return err
}
