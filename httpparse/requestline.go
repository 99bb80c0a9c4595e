package httpparse

import (
	"bytes"
	"encoding/binary"

	"github.com/redirectd/redirectd/internal/ascii"
)

// requestLine parses the empty lines and the request line at the start of
// b, which is already cut to MaxRequestLine, and returns the offset of the
// first header line. Whatever it returns, r.Target holds the run of
// target bytes it scanned, so that Parse can check it against MaxTarget.
//
//	request-line = method SP request-target SP HTTP-version CRLF
//
// (RFC 9112 section 3). Exactly one SP between the parts, nothing else.
func (p *parser) requestLine(b []byte) (int, *Error) {
	// RFC 9112 section 2.2: a server SHOULD ignore at least one empty line
	// received before the request line; clients send one after a POST body.
	pos := 0
	for pos < len(b) && (b[pos] == '\r' || b[pos] == '\n') {
		if err := crlf(b, pos, ErrBareLF); err != nil {
			return 0, err
		}
		pos += 2
	}

	// The method scan stops one byte past MaxMethod, so that no part of
	// the line is scanned beyond its own bound: method, target and version
	// each have one, and the line's is their sum.
	start := pos
	end := min(len(b), start+MaxMethod+1)
	for pos < end && ascii.TokenChar(b[pos]) {
		pos++
	}
	if pos-start > MaxMethod {
		return 0, ErrMethodTooLong
	}
	if pos == start || pos >= len(b) || b[pos] != ' ' {
		return 0, stopError(b, pos, ErrBadRequestLine)
	}
	p.r.Method = b[start:pos]
	pos++

	// An earlier call with fewer bytes (ParseResume) may have scanned
	// part of the target: targetEnd is where that scan stopped.
	start = pos
	pos = max(pos, p.targetEnd)
	for pos < len(b) && targetTable[b[pos]] {
		pos++
	}
	p.targetEnd = pos
	p.r.Target = b[start:pos]
	if pos == start || pos >= len(b) || b[pos] != ' ' {
		return 0, stopError(b, pos, ErrBadRequestLine)
	}
	if err := p.target(b[start:pos]); err != nil {
		return 0, err
	}
	pos++

	pos, err := p.version(b, pos)
	if err != nil {
		return 0, err
	}
	if err := crlf(b, pos, ErrBadRequestLine); err != nil {
		return 0, err
	}
	// Checked after the CRLF so that "HTTP/2.0 junk" is a malformed line
	// rather than a version we merely do not speak.
	if p.r.Major != 1 || p.r.Minor > 1 {
		return 0, ErrVersionNotSupported
	}
	return pos + 2, nil
}

// http11 and http10 are "HTTP/1.1" and "HTTP/1.0" read as little-endian
// words (TestVersionWords).
const (
	http11 = 0x312e312f50545448
	http10 = 0x302e312f50545448
)

// version parses HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 section
// 2.3; the name is case-sensitive) at b[pos], byte by byte so that a
// prefix of a valid version is not an error.
func (p *parser) version(b []byte, pos int) (int, *Error) {
	// Nearly every request says HTTP/1.1 or HTTP/1.0: one compare of the
	// eight bytes as a word, rather than eight of a byte (5 % of the
	// instructions of answering a short pipelined request).
	if pos+8 <= len(b) {
		switch binary.LittleEndian.Uint64(b[pos:]) {
		case http11:
			p.r.Major, p.r.Minor = 1, 1
			return pos + 8, nil
		case http10:
			p.r.Major, p.r.Minor = 1, 0
			return pos + 8, nil
		}
	}
	const pattern = "HTTP/0.0"
	for i := 0; i < len(pattern); i++ {
		if pos+i >= len(b) {
			return 0, errNeedMore
		}
		c := b[pos+i]
		ok := c == pattern[i]
		if pattern[i] == '0' {
			ok = '0' <= c && c <= '9'
		}
		if !ok {
			return 0, stopError(b, pos+i, ErrBadVersion)
		}
	}
	p.r.Major = int(b[pos+5] - '0')
	p.r.Minor = int(b[pos+7] - '0')
	return pos + len(pattern), nil
}

// target sorts the request-target t, already in r.Target, into the forms we
// serve (RFC 9112 section 3.2) and fills Path, Query and, for absolute-form,
// Host.
// authority-form (CONNECT) is rejected: a redirect server is no proxy.
func (p *parser) target(t []byte) *Error {
	r := p.r
	switch {
	case t[0] == '/': // origin-form = absolute-path [ "?" query ]
		r.Path, r.Query = splitQuery(t)
		return nil
	case len(t) == 1 && t[0] == '*': // asterisk-form, for OPTIONS only
		if string(r.Method) != "OPTIONS" {
			return ErrBadRequestLine
		}
		r.Path = t
		return nil
	}

	// absolute-form = absolute-URI, of which we take http and https.
	n := schemeLen(t)
	if n == 0 {
		return ErrBadRequestLine
	}
	rest := t[n:]
	end := 0
	for end < len(rest) && rest[end] != '/' && rest[end] != '?' {
		end++
	}
	if !validHost(rest[:end]) {
		return ErrBadHost
	}
	// RFC 9112 section 3.2.2: the target's authority wins over Host.
	r.Host = rest[:end]
	p.absHost = true
	r.Path, r.Query = splitQuery(rest[end:])
	if len(r.Path) == 0 {
		// The empty path means "/" (RFC 9110 section 4.2.3). Point at the
		// second '/' of "://" so Path stays inside buf; the capacity is
		// cut so an append cannot write over the authority.
		r.Path = t[n-1 : n : n]
	}
	return nil
}

// schemeLen returns the length of a leading "http://" or "https://", in
// any case (RFC 3986 section 3.1), or 0.
func schemeLen(t []byte) int {
	switch {
	case len(t) >= 7 && equalFold(t[:7], "http://"):
		return 7
	case len(t) >= 8 && equalFold(t[:8], "https://"):
		return 8
	}
	return 0
}

// splitQuery splits at the first '?'; query is nil without one.
func splitQuery(t []byte) (path, query []byte) {
	if i := bytes.IndexByte(t, '?'); i >= 0 {
		return t[:i], t[i+1:]
	}
	return t, nil
}
