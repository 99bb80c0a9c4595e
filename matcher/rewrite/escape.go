package rewrite

// escapeTable is one of nginx's ngx_escape_uri tables: bit c set means
// byte c is written as %XX.
type escapeTable [8]uint32

// escapeURI is NGX_ESCAPE_URI (controls, ' ', '#', '%', '?', DEL and
// non-ASCII), for a rewritten URI sent upstream. escapeCapture is what
// nginx 1.22 escapes in a capture that goes into a redirect when the
// path as sent held '%' or '+' (controls, ' ', '"', '#', '%', DEL and
// non-ASCII; '+', '?', '&' and ';' go as they are), as measured by
// TestAgainstNginx.
var (
	escapeURI     = escapeTable{0xffffffff, 0x80000029, 0, 0x80000000, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}
	escapeCapture = escapeTable{0xffffffff, 0x0000002d, 0, 0x80000000, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}
)

func (t *escapeTable) has(c byte) bool { return t[c>>5]&(1<<(c&0x1f)) != 0 }

const hexDigits = "0123456789ABCDEF"

// appendEscaped appends b to dst with t's bytes escaped.
func appendEscaped(dst, b []byte, t *escapeTable) []byte {
	for _, c := range b {
		if t.has(c) {
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

// escapeCaptureLocation is escapeCapture then escapeLocation in one
// pass: what escapeCapture writes ('%' and hex digits) a Location
// carries as it is.
var escapeCaptureLocation = func() (t escapeTable) {
	for i := range t {
		t[i] = escapeCapture[i] | escapeLocation[i]
	}
	return t
}()

// escapeLocation is what appendLocationSafe escapes.
var escapeLocation = func() (t escapeTable) {
	for c := range 256 {
		if c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}' {
			t[c>>5] |= 1 << (c & 0x1f)
		}
	}
	return t
}()

// appendLocationSafe appends loc with the bytes that a Location field
// cannot carry percent-encoded: controls, ' ', '"', '<', '>', '\\', '^',
// '`', '{', '|', '}', DEL and non-ASCII. nginx sends them as they are;
// this is the one intended difference. The runs between such bytes
// (the whole Location, mostly) are appended at once: byte by byte, this
// cost a rewrite's redirect an eighth of its time.
func appendLocationSafe[T ~string | ~[]byte](dst []byte, loc T) []byte {
	for {
		i := locationUnsafe(loc)
		dst = append(dst, loc[:i]...)
		if i == len(loc) {
			return dst
		}
		c := loc[i]
		dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
		loc = loc[i+1:]
	}
}

// locationUnsafe is the index of loc's first byte that appendLocationSafe
// escapes, len(loc) when there is none.
func locationUnsafe[T ~string | ~[]byte](loc T) int {
	i := 0
	for i < len(loc) && !locationEscaped[loc[i]] {
		i++
	}
	return i
}

// locationEscaped is escapeLocation as a byte's flag: one load per byte
// of every capture a redirect writes.
var locationEscaped = func() (t [256]bool) {
	for c := range 256 {
		t[c] = escapeLocation.has(byte(c))
	}
	return t
}()
