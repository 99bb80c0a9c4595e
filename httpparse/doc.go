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
// ParseResume is Parse for a caller that keeps a Progress beside the
// buffer: after (0, nil), the next call scans only from where the last one
// stopped, so a head that arrives a byte per read is scanned about once
// rather than once per byte. Its answers are Parse's, for any split.
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
// differently (request smuggling). Every rule below is enforced; every
// error is final and the caller closes after answering it.
//
//   - Versions: HTTP/1.0 and HTTP/1.1; another HTTP/DIGIT.DIGIT is 505,
//     anything else in its place 400.
//   - Limits: a method over MaxMethod (32 bytes) is 501; a target over
//     MaxTarget (server.max_path_bytes, default 8192) or a request line
//     over MaxRequestLine (default MaxTarget + 1024) is 414; a header
//     section over MaxHeaderBytes (64 KiB) or with more than MaxHeaders
//     (100) field lines is 431. Each part of the request line is bounded
//     on its own, so how a line's bytes are shared between method and
//     target does not change its answer.
//   - Lines end in CRLF only; a bare LF or bare CR anywhere is ErrBareLF.
//   - Empty lines before the request line are skipped (RFC 9112 section
//     2.2); they count toward MaxRequestLine and HeadLen.
//   - The request line is method SP target SP version CRLF with exactly one
//     SP between the parts and nothing after the version: two spaces, an
//     HTAB or a trailing space is 400.
//   - Only origin-form, absolute-form with an http or https scheme (matched
//     as its host and path) and "OPTIONS *" are accepted; "*" with another
//     method and CONNECT's authority-form are 400.
//   - The target may hold any visible ASCII byte but '"', '<', '>' and '\';
//     SP, controls, DEL and bytes >= 0x80 are 400. "[ ] { } | ^ `", which
//     browsers send raw in queries, are accepted; '#' is 400, as no
//     request-target form holds a fragment. The target is not
//     percent-decoded.
//   - A field name must be a token directly followed by ':'. Obsolete line
//     folding, controls other than HTAB in a value, and a value that is
//     not valid UTF-8 are rejected, not repaired.
//   - Host must be a valid host[:port] even when an absolute-form target
//     overrides it, and appear exactly once in HTTP/1.1 (at most once in
//     HTTP/1.0): a reg-name of 1 to 255 bytes, an IPv4 address or a
//     bracketed IPv6 address, with an optional port of at most 65535.
//   - Content-Length is plain digits that fit in an int64; repeats must
//     agree. Transfer-Encoding must be "chunked" (any case) on one field
//     line, else 400; it is rejected together with Content-Length and in
//     HTTP/1.0.
//   - Methods are any token and are not checked against a list.
package httpparse
