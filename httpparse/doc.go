// Package httpparse parses HTTP/1.0 and HTTP/1.1 request heads (RFC 9112)
// in place, for an event loop that holds its connection's bytes in a buffer.
//
// Its one job: given the bytes buffered so far, say whether they start with
// a whole request head, and if so fill a Request with slices of that head.
// It does not read bodies, decode percent-escapes, or answer requests; the
// Error it returns carries the status code to answer with.
//
// # Incremental use
//
// Parse looks only at the start of the buffer. It returns (0, nil) while the
// bytes there are a valid prefix of a head, so the caller keeps them and
// calls again with the same start once more bytes arrive; heads are bounded
// by Limits, so parsing from the start again is cheap and Parse keeps no
// state between calls. After a complete head it returns the head's length;
// the caller discards that many bytes (plus any body) and calls again for a
// pipelined request. An error is final: a longer buffer with the same start
// gives the same error, so the caller answers and closes.
//
// Parse never returns (0, nil) once the buffer holds more than
// MaxRequestLine+MaxHeaderBytes bytes: a caller that buffers that much for
// one head gets an answer.
//
// # Hot-path contract
//
// Parse allocates nothing once the Request it is given has held as many
// headers as the current request has (Headers is reset to Headers[:0] and
// appended to, so it grows once per connection, or never if the caller gives
// it a capacity up front). Every []byte in the Request is a sub-slice of the
// buffer passed to Parse: it is valid only until the caller reuses or
// discards those bytes (for gnet, until the OnTraffic callback returns or
// the bytes are discarded), it must not cross goroutines, and it must not be
// appended to. Anything kept longer is copied on purpose by the caller.
//
// # Strictness
//
// Parse follows RFC 9112 and RFC 9110 and, where they allow a choice, takes
// the one that leaves no room for a proxy in front of us to read the head
// differently (request smuggling):
//
//   - Lines end in CRLF only; a bare LF or bare CR anywhere is ErrBareLF.
//   - Empty lines before the request line are skipped (RFC 9112 section
//     2.2); they count toward MaxRequestLine and HeadLen.
//   - Obsolete line folding, whitespace before a field's colon, and control
//     bytes other than HTAB in a field value are rejected, not repaired.
//   - Only origin-form, absolute-form with an http or https scheme, and
//     "OPTIONS *" are accepted; CONNECT's authority-form is rejected.
//   - The target may hold any visible ASCII byte but '"', '<', '>' and '\';
//     it is not percent-decoded, and '#' is kept as an ordinary byte.
//   - Host must be a valid host[:port] even when an absolute-form target
//     overrides it, and appear exactly once in HTTP/1.1.
//   - Content-Length is plain digits; repeats must agree. Transfer-Encoding
//     must be exactly "chunked" (else 501), and is rejected together with
//     Content-Length or in HTTP/1.0.
//   - Methods are any token and are not checked against a list.
package httpparse
