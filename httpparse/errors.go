package httpparse

// Error is a malformed or oversized request head. Status is the HTTP status
// code to answer with (RFC 9112 and RFC 9110: 431 for a header section over
// the limits, 414 for an overlong target or request line, 501 for a method
// longer than MaxMethod, 505 for an unsupported version, 400 for everything
// else, a transfer coding we do not implement included). Msg never contains
// request bytes, so it is safe to log or to send back.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return "httpparse: " + e.Msg }

// Parse returns only these values, so callers can compare with errors.Is or
// ==, and reading Status costs no allocation.
var (
	// ErrBadRequestLine is a request line that is not method SP target SP
	// version CRLF, or a target in none of the forms we serve.
	ErrBadRequestLine = &Error{400, "malformed request line"}
	// ErrBadVersion is a version that is not HTTP/DIGIT.DIGIT.
	ErrBadVersion = &Error{400, "malformed http version"}
	// ErrVersionNotSupported is a well-formed version other than 1.0 or 1.1.
	ErrVersionNotSupported = &Error{505, "http version not supported"}
	// ErrMethodTooLong is a method longer than MaxMethod bytes. RFC 9112
	// section 3: "A server that receives a method longer than any that it
	// implements SHOULD respond with a 501 (Not Implemented) status code."
	// It is 501 whatever follows, so a long method is not answered 414 or
	// accepted depending on the target's length.
	ErrMethodTooLong = &Error{501, "method not implemented"}
	// ErrURITooLong is a request-target longer than Limits.MaxTarget or a
	// request line longer than Limits.MaxRequestLine.
	ErrURITooLong = &Error{414, "request line too long"}
	// ErrHeaderTooLarge is a header section longer than
	// Limits.MaxHeaderBytes or with more than Limits.MaxHeaders fields.
	ErrHeaderTooLarge = &Error{431, "request header fields too large"}
	// ErrBadHeader is a header line that is not token ":" value, a value
	// with control characters other than HTAB or that is not valid UTF-8,
	// or an obsolete line folding.
	ErrBadHeader = &Error{400, "malformed header field"}
	// ErrBadHost is a Host value, or the authority of an absolute-form
	// target, that is not host[:port].
	ErrBadHost = &Error{400, "malformed host"}
	// ErrMissingHost is an HTTP/1.1 request without a Host field
	// (RFC 9112 section 3.2).
	ErrMissingHost = &Error{400, "missing host header"}
	// ErrDuplicateHost is a request with more than one Host field line
	// (RFC 9112 section 3.2).
	ErrDuplicateHost = &Error{400, "duplicate host header"}
	// ErrBadContentLength is a Content-Length that is not plain digits or
	// does not fit in an int64.
	ErrBadContentLength = &Error{400, "malformed content-length"}
	// ErrSmuggling is framing that two parsers could read differently:
	// Content-Length together with Transfer-Encoding, two different
	// Content-Length values, or Transfer-Encoding in an HTTP/1.0 request
	// (RFC 9112 sections 6.1 and 6.3).
	ErrSmuggling = &Error{400, "ambiguous message framing"}
	// ErrBadTransferEncoding is a Transfer-Encoding other than "chunked"
	// (in any case) on one field line, the only coding we implement
	// (RFC 9112 section 6.1). It is a 400, not the 501 RFC 9112 suggests:
	// It is a framing error like the ones above.
	ErrBadTransferEncoding = &Error{400, "unsupported transfer-encoding"}
	// ErrBareLF is an LF without a CR before it, or a CR without an LF
	// after it, anywhere in the head. Rejecting both keeps us from reading
	// line boundaries differently from a proxy in front of us.
	ErrBareLF = &Error{400, "bare lf or cr in request head"}
)

// errNeedMore is internal: the scan ran off the end of the bytes it was
// allowed to look at. Parse turns it into (0, nil) or a limit error.
var errNeedMore = &Error{0, "need more bytes"}
