package httpparse

// Limits bound one request head. A field that is zero or negative takes its
// default, so Limits{} and a nil *Limits both mean DefaultLimits.
type Limits struct {
	// MaxTarget bounds the request-target in bytes: the configured
	// server.max_path_bytes. A target of MaxTarget bytes is accepted, a
	// longer one gets 414 (ErrURITooLong), as soon as the bytes buffered
	// show it. Default 8192.
	MaxTarget int
	// MaxRequestLine bounds the request line in bytes, counting its CRLF
	// and any empty lines skipped before it; over it: 414. Each part of
	// the line has its own bound, checked as soon as the bytes show it:
	// the method MaxMethod (501), the target MaxTarget (414), the version
	// its 8 bytes; so the line proper is at most MaxMethod + MaxTarget +
	// 12 bytes by construction, and what MaxRequestLine adds is a bound on
	// the empty lines before it. Zero means MaxTarget + 1024, room for the
	// other parts of a line with a target of MaxTarget bytes and for
	// empty lines; set below that, it caps the target and method too.
	MaxRequestLine int
	// MaxHeaderBytes bounds the header section in bytes, from the first
	// header line through the final empty line. Over it: 431.
	MaxHeaderBytes int
	// MaxHeaders bounds the number of header field lines. Over it: 431.
	MaxHeaders int
}

// MaxMethod is the longest method accepted, in bytes; a longer one is
// ErrMethodTooLong (501). The longest registered method, UPDATEREDIRECTREF
// (IANA's HTTP Method Registry), has 17 bytes. It is a constant, not a
// Limits field: no client needs more, and a fixed bound keeps the request
// line bounded part by part (see MaxRequestLine).
const MaxMethod = 32

const (
	// 8 KiB of target is what common proxies and browsers cope with.
	defaultMaxTarget = 8192
	// requestLineSlack is what a request line may hold besides its target
	// when MaxRequestLine is unset: a method of up to MaxMethod bytes, two
	// SP, "HTTP/1.1", CRLF, and empty lines before it.
	requestLineSlack      = 1024
	defaultMaxHeaderBytes = 64 << 10
	defaultMaxHeaders     = 100
)

// DefaultLimits shows the limits Parse uses for a nil *Limits or a zero
// field. Its MaxRequestLine is 0, meaning MaxTarget + 1024 (9216 here), so a
// copy that only changes MaxTarget keeps the request line in step with it.
// Parse reads the constants behind DefaultLimits, not the variable, so that
// no goroutine can change another's limits by assigning to it.
var DefaultLimits = Limits{
	MaxTarget:      defaultMaxTarget,
	MaxHeaderBytes: defaultMaxHeaderBytes,
	MaxHeaders:     defaultMaxHeaders,
}

// resolved is the limits in force for one Parse call.
type resolved struct {
	target, line, header, count int
}

// resolve returns the limits in force, with defaults for unset fields.
func (l *Limits) resolve() resolved {
	r := resolved{defaultMaxTarget, 0, defaultMaxHeaderBytes, defaultMaxHeaders}
	if l != nil {
		if l.MaxTarget > 0 {
			r.target = l.MaxTarget
		}
		if l.MaxRequestLine > 0 {
			r.line = l.MaxRequestLine
		}
		if l.MaxHeaderBytes > 0 {
			r.header = l.MaxHeaderBytes
		}
		if l.MaxHeaders > 0 {
			r.count = l.MaxHeaders
		}
	}
	if r.line == 0 {
		// Saturate rather than wrap for a MaxTarget near MaxInt.
		r.line = r.target + min(requestLineSlack, maxInt-r.target)
	}
	return r
}

const maxInt = int(^uint(0) >> 1)

// The default request line holds every part at its bound, so only empty
// lines before it can make it the limit that answers: this fails to
// compile if MaxMethod outgrows the slack.
const _ = uint(requestLineSlack - (MaxMethod + len(" ") + len(" HTTP/1.1\r\n")))
