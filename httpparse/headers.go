package httpparse

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/redirectd/redirectd/internal/ascii"
)

// headers parses header field lines from b[pos:] through the empty line
// that ends the head, and returns the offset just past that line. b is
// already cut to the end of MaxHeaderBytes.
//
//	field-line = field-name ":" OWS field-value OWS CRLF
//
// (RFC 9112 section 5). No whitespace before the colon, no obs-fold, and
// a value must be valid UTF-8 (obs-text that is not UTF-8 is
// most often a Latin-1 or binary value that a backend would read
// differently from a proxy, and no browser sends it).
func (p *parser) headers(b []byte, pos, maxCount int) (int, *Error) {
	r := p.r
	for {
		if pos >= len(b) {
			p.stop(pos, lineHint{})
			return 0, errNeedMore
		}
		if b[pos] == '\r' || b[pos] == '\n' {
			if err := crlf(b, pos, ErrBareLF); err != nil {
				p.stop(pos, lineHint{})
				return 0, err
			}
			return pos + 2, nil
		}

		start := pos
		for pos < len(b) && ascii.TokenChar(b[pos]) {
			pos++
		}
		// A line starting with SP or HTAB is an obs-fold (or whitespace
		// before the first field); RFC 9112 section 5.2 lets a server
		// reject it with 400, and unfolding would need a copy.
		if pos == start || pos >= len(b) || b[pos] != ':' {
			p.stop(start, lineHint{scanned: pos})
			return 0, stopError(b, pos, ErrBadHeader)
		}
		name := b[start:pos]
		colon := pos
		pos++

		for pos < len(b) && (b[pos] == ' ' || b[pos] == '\t') {
			pos++
		}
		vstart := pos
		var high bool // a byte >= 0x80 in the value
		pos, high = scanValue(b, pos)
		if err := crlf(b, pos, ErrBadHeader); err != nil {
			p.stop(start, lineHint{colon: colon, scanned: pos, high: high})
			return 0, err
		}
		end := pos
		for end > vstart && (b[end-1] == ' ' || b[end-1] == '\t') {
			end--
		}
		pos += 2
		value := b[vstart:end]
		// Only a value with a byte >= 0x80 can be invalid UTF-8, so an
		// ASCII head never pays for the check.
		if high && !utf8.Valid(value) {
			return 0, ErrBadHeader
		}

		if len(r.Headers) >= maxCount {
			return 0, ErrHeaderTooLarge
		}
		r.Headers = append(r.Headers, Header{Name: name, Value: value})
		if err := p.field(name, value); err != nil {
			return 0, err
		}
	}
}

// lineHint is how far a scan got into a field line before the bytes ran
// out, so that a later call with more bytes (ParseResume) goes on from
// there: colon is the offset of the line's colon (0: the name is not
// complete yet); scanned the offset where the scan of the name (colon ==
// 0) or of the value stopped; high whether a byte >= 0x80 was among the
// value bytes scanned. The zero lineHint scans the line from its start.
type lineHint struct {
	colon, scanned int
	high           bool
}

// stop records where headers stopped, for ParseResume: the start of the
// line not yet complete and how far into it the scan got.
func (p *parser) stop(line int, h lineHint) {
	p.line, p.hint = line, h
}

// scanValue returns the offset of the first byte at or after pos that is
// not valueTable, or len(b), and whether a byte >= 0x80 was among those
// before it.
//
// Values (Cookie, User-Agent, Accept) are most of a browser's head, so
// eight bytes are checked at a time: a word with no byte below 0x20 and no
// DEL is all valueTable bytes. Only the word holding the CR, or an HTAB, is
// looked at byte by byte. On the dev machine this took the 650-byte browser
// head in bench_test.go from about 580 to 400 ns.
//
// The words passed are or-ed together to spot a byte >= 0x80 for the UTF-8
// check: one instruction per word, and one mask for the bytes of the word
// holding the CR, rather than one per byte.
func scanValue(b []byte, pos int) (int, bool) {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	var seen uint64 // the bytes passed, or-ed together lane by lane
	for pos+8 <= len(b) {
		w := b[pos : pos+8 : pos+8]
		x := binary.LittleEndian.Uint64(w)
		// Bytes below 0x20 (exact: with no such byte, nothing borrows),
		// then bytes equal to 0x7f (a zero byte in x^0x7f...).
		lt := (x - 0x20*ones) &^ x
		y := x ^ (0x7f * ones)
		del := (y - ones) &^ y
		if (lt|del)&highs != 0 {
			k := 0
			for k < len(w) && valueTable[w[k]] {
				k++
			}
			if k < len(w) {
				// Little-endian: the k bytes passed are the low k lanes.
				seen |= x & (1<<(8*k) - 1)
				return pos + k, seen&highs != 0
			}
			// Only an HTAB stopped the word test; all 8 are value bytes.
		}
		seen |= x
		pos += 8
	}
	// Fewer than 8 bytes left: the end of what has arrived so far.
	for pos < len(b) && valueTable[b[pos]] {
		seen |= uint64(b[pos])
		pos++
	}
	return pos, seen&highs != 0
}

// field records what the head's framing and routing need from one field.
// Names are matched by length first so most fields cost one switch.
func (p *parser) field(name, value []byte) *Error {
	r := p.r
	switch len(name) {
	case 4:
		if !equalFold(name, "host") {
			return nil
		}
		// RFC 9112 section 3.2: 400 for more than one Host line or an
		// invalid one, even when an absolute-form target overrides it.
		if p.hostSeen {
			return ErrDuplicateHost
		}
		p.hostSeen = true
		if !validHost(value) {
			return ErrBadHost
		}
		if !p.absHost {
			r.Host = value
		}
	case 6:
		if equalFold(name, "expect") && equalFold(value, "100-continue") {
			p.expect = true
		}
	case 10:
		if equalFold(name, "connection") {
			p.connection(value)
		}
	case 14:
		if !equalFold(name, "content-length") {
			return nil
		}
		n, ok := parseContentLength(value)
		if !ok {
			return ErrBadContentLength
		}
		// RFC 9110 section 8.6 allows repeats of one value; different
		// values are the classic request-smuggling vector.
		if p.clSeen && n != r.ContentLength {
			return ErrSmuggling
		}
		p.clSeen = true
		r.ContentLength = n
	case 17:
		if !equalFold(name, "transfer-encoding") {
			return nil
		}
		// A second line would make the coding "chunked, chunked", which
		// is not "chunked"; so would any list. Coding names are
		// case-insensitive (RFC 9112 section 7), so "Chunked" is fine.
		// RFC 9112 section 6.1 suggests 501 for a coding we do not know;
		// Every framing problem is answered 400, and the connection closed anyway.
		if r.Chunked || !equalFold(value, "chunked") {
			return ErrBadTransferEncoding
		}
		r.Chunked = true
	}
	return nil
}

// connection notes the "close" and "keep-alive" options in a Connection
// value: a comma-separated list of case-insensitive tokens with optional
// whitespace (RFC 9110 section 7.6.1).
func (p *parser) connection(v []byte) {
	for len(v) > 0 {
		i := 0
		for i < len(v) && v[i] != ',' {
			i++
		}
		tok := trimOWS(v[:i])
		switch {
		case equalFold(tok, "close"):
			p.close = true
		case equalFold(tok, "keep-alive"):
			p.keepAlive = true
		}
		if i == len(v) {
			break
		}
		v = v[i+1:]
	}
}

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// parseContentLength parses Content-Length = 1*DIGIT (RFC 9110 section
// 8.6) into an int64. Signs, spaces inside, and lists such as "5, 5" are
// rejected rather than guessed at.
func parseContentLength(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const maxInt64 = 1<<63 - 1
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (maxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
