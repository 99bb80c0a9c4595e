package httpparse

// Limits bound one request head. A field that is zero or negative takes its
// value from DefaultLimits' constants, so Limits{} and a nil *Limits both
// mean the defaults.
type Limits struct {
	// MaxRequestLine bounds the request line in bytes, counting its CRLF
	// and any empty lines skipped before it. Over it: 414.
	MaxRequestLine int
	// MaxHeaderBytes bounds the header section in bytes, from the first
	// header line through the final empty line. Over it: 431.
	MaxHeaderBytes int
	// MaxHeaders bounds the number of header field lines. Over it: 431.
	MaxHeaders int
}

const (
	// 8 KiB of target is what common proxies and browsers cope with; the
	// extra 1 KiB leaves room for method, version and a long query.
	defaultMaxRequestLine = 8192 + 1024
	defaultMaxHeaderBytes = 64 << 10
	defaultMaxHeaders     = 100
)

// DefaultLimits shows the limits Parse uses for a nil *Limits or a zero
// field. Parse reads the constants behind it, not the variable, so that no
// goroutine can change another's limits by assigning to it.
var DefaultLimits = Limits{
	MaxRequestLine: defaultMaxRequestLine,
	MaxHeaderBytes: defaultMaxHeaderBytes,
	MaxHeaders:     defaultMaxHeaders,
}

// resolve returns the limits in force, with defaults for unset fields.
func (l *Limits) resolve() (line, header, count int) {
	line, header, count = defaultMaxRequestLine, defaultMaxHeaderBytes, defaultMaxHeaders
	if l == nil {
		return
	}
	if l.MaxRequestLine > 0 {
		line = l.MaxRequestLine
	}
	if l.MaxHeaderBytes > 0 {
		header = l.MaxHeaderBytes
	}
	if l.MaxHeaders > 0 {
		count = l.MaxHeaders
	}
	return
}
