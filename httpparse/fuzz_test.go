package httpparse

import (
	"bytes"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// fuzzLimits are small so that the fuzzer reaches the limit paths with
// short inputs: the target limit below the request line's, and the target
// limit alone with the request line derived from it.
var fuzzLimits = []*Limits{
	{MaxTarget: 24, MaxRequestLine: 64, MaxHeaderBytes: 128, MaxHeaders: 4},
	{MaxTarget: 12},
}

var sentinels = map[*Error]bool{
	ErrBadRequestLine: true, ErrBadVersion: true, ErrVersionNotSupported: true,
	ErrMethodTooLong: true, ErrURITooLong: true, ErrHeaderTooLarge: true, ErrBadHeader: true,
	ErrBadHost: true, ErrMissingHost: true, ErrDuplicateHost: true,
	ErrBadContentLength: true, ErrSmuggling: true, ErrBadTransferEncoding: true,
	ErrBareLF: true,
}

// FuzzParse checks Parse's contract on arbitrary bytes, with the default
// and with small limits, and that ParseResume gives Parse's answers when
// the bytes come in pieces. testdata/fuzz/FuzzParse holds seeds that plain
// go test replays too.
func FuzzParse(f *testing.F) {
	for _, group := range [][]parseCase{validCases, errorCases, limitCases, incompleteCases} {
		for _, tc := range group {
			if len(tc.in) <= 4096 {
				f.Add([]byte(tc.in))
			}
		}
	}
	f.Add([]byte(pipelined))
	f.Add([]byte(simpleHead))
	f.Add([]byte(browserHead))

	f.Fuzz(func(t *testing.T, buf []byte) {
		if len(buf) > 4096 {
			return // the limits are what bounds work; longer adds nothing
		}
		checkParse(t, buf, nil)
		for _, lim := range fuzzLimits {
			checkParse(t, buf, lim)
		}
	})
}

func checkParse(t *testing.T, buf []byte, lim *Limits) {
	var r Request
	n, err := Parse(buf, &r, lim)
	got := summarize(n, err)(&r)
	l := lim.resolve()

	switch {
	case err != nil:
		e, ok := err.(*Error)
		if !ok || !sentinels[e] || n != 0 {
			t.Fatalf("Parse(%q) = %d, %#v; want 0 and a sentinel *Error", buf, n, err)
		}
	case n == 0:
		if len(buf) > l.line+l.header {
			t.Fatalf("Parse(%q) incomplete past the limits", buf)
		}
		rest := buf
		for bytes.HasPrefix(rest, []byte("\r\n")) {
			rest = rest[2:]
		}
		if bytes.Contains(rest, []byte("\r\n\r\n")) {
			t.Fatalf("Parse(%q) incomplete, but a head ends in it", buf)
		}
	default:
		checkRequest(t, buf, n, &r)
		if len(r.Target) > l.target || len(r.Headers) > l.count {
			t.Fatalf("Parse(%q, %+v): target of %d bytes, %d headers", buf, l, len(r.Target), len(r.Headers))
		}
		// The head alone parses the same: nothing after it was looked at.
		var again Request
		if d := summarize(Parse(buf[:n], &again, lim))(&again); d != got {
			t.Fatalf("Parse(%q) = %+v, but its head alone gives %+v", buf, got, d)
		}
	}

	// ParseResume answers as Parse does however the bytes arrive: in
	// pieces of sizes the input itself picks.
	step := max(1, len(buf)/128)
	if len(buf) > 0 {
		checkResume(t, buf, lim, []int{step + int(buf[0])%5*step, step + int(buf[len(buf)-1])%3*step, step})
	}

	// An answer depends only on the bytes before it: every prefix is
	// incomplete or gives the same answer, so splitting a read never
	// changes a result. Small inputs try every prefix, big ones a sample.
	for k := 0; k < len(buf); k += step {
		var pr Request
		p := summarize(Parse(buf[:k], &pr, lim))(&pr)
		if p != incomplete && p != got {
			t.Fatalf("Parse(%q) = %+v, but prefix %q gives %+v", buf, got, buf[:k], p)
		}
	}
}

func checkRequest(t *testing.T, buf []byte, n int, r *Request) {
	if n < 0 || n > len(buf) || r.HeadLen != n {
		t.Fatalf("Parse(%q) = %d with HeadLen %d", buf, n, r.HeadLen)
	}
	head := buf[:n]
	if !bytes.HasSuffix(head, []byte("\r\n\r\n")) {
		t.Fatalf("head %q does not end in CRLF CRLF", head)
	}
	if !bytes.HasPrefix(r.Path, []byte("/")) && string(r.Path) != "*" {
		t.Fatalf("Parse(%q): Path %q", buf, r.Path)
	}
	if r.Major != 1 || r.Minor > 1 || r.ContentLength < -1 {
		t.Fatalf("Parse(%q): version %d.%d, ContentLength %d", buf, r.Major, r.Minor, r.ContentLength)
	}
	if r.Minor == 1 && len(r.Host) == 0 {
		t.Fatalf("Parse(%q): HTTP/1.1 without Host", buf)
	}
	fields := [][]byte{r.Method, r.Target, r.Path, r.Query, r.Host}
	for _, h := range r.Headers {
		fields = append(fields, h.Name, h.Value)
		if !utf8.Valid(h.Value) || bytes.ContainsFunc(h.Value, func(c rune) bool { return c < ' ' && c != '\t' || c == 0x7f }) {
			t.Fatalf("Parse(%q): header value %q", buf, h.Value)
		}
	}
	for _, c := range r.Target {
		if !targetTable[c] {
			t.Fatalf("Parse(%q): byte %q in target", buf, c)
		}
	}
	for _, s := range fields {
		if !within(head, s) {
			t.Fatalf("Parse(%q): %q is not a sub-slice of the head", buf, s)
		}
	}
}

// within reports whether s is nil or lies inside buf's bytes.
func within(buf, s []byte) bool {
	if s == nil {
		return true
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return lo <= p && p+uintptr(len(s)) <= lo+uintptr(len(buf))
}
