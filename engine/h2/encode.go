package h2

import (
	"bytes"
	"unsafe"

	"golang.org/x/net/http2/hpack"

	"github.com/redirectd/redirectd/internal/ascii"
)

// appendBlock appends to dst the HPACK header block of the answer whose
// HTTP/1.1 head starts answer ("HTTP/1.1 301 ...\r\nLocation: /b\r\n...
// \r\n\r\n"), and returns it with the answer's status and the length of
// the head (the body follows it). ok is false when answer does not start
// with a whole head.
//
// Every field is a literal "without indexing" (RFC 7541 6.2.2), its name
// by its static table index where it has one: nothing enters the peer's
// dynamic table, so the block needs no table state and encoding it
// allocates nothing. The fields that name the HTTP/1.1 connection
// (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade)
// are left out (RFC 9113 8.2.2); names go lower case (8.2).
func appendBlock(dst, answer []byte) (block []byte, status, headLen int, ok bool) {
	headLen = headEnd(answer)
	if headLen < 0 {
		return dst, 0, 0, false
	}
	end := headLen - 4
	st := answer[9:12]
	for _, d := range st {
		if d < '0' || d > '9' {
			return dst, 0, 0, false
		}
	}
	status = int(st[0]-'0')*100 + int(st[1]-'0')*10 + int(st[2]-'0')
	if status < 200 {
		// A stream's answer is final: HTTP/2 has no 101 (RFC 9113 8.6),
		// and this package sends no interim answers.
		return dst, 0, 0, false
	}
	if idx := statusIndex(status); idx != 0 {
		dst = append(dst, 0x80|idx)
	} else {
		dst = append(dst, 0x08, 3) // name :status (8), a raw value of 3 bytes
		dst = append(dst, st...)
	}
	lines := answer[bytes.IndexByte(answer, '\n')+1 : end+2]
	for len(lines) > 0 {
		nl := bytes.IndexByte(lines, '\n')
		line := lines[:nl-1] // without CRLF
		lines = lines[nl+1:]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		name, value := line[:colon], bytes.TrimLeft(line[colon+1:], " \t")
		dst = appendField(dst, name, bytes.TrimRight(value, " \t"))
	}
	return dst, status, headLen, true
}

// headEnd is the length of the HTTP/1.1 head that starts answer, through
// its empty line; -1 when answer does not start with one.
func headEnd(answer []byte) int {
	end := bytes.Index(answer, []byte("\r\n\r\n"))
	if end < 0 || len(answer) < 12 || !bytes.HasPrefix(answer, []byte("HTTP/1.")) {
		return -1
	}
	return end + 4
}

// appendField appends one field as a literal without indexing, unless it
// is one of the connection's.
func appendField(dst, name, value []byte) []byte {
	var low [64]byte
	if len(name) > len(low) {
		dst = append(dst, 0)
		dst = appendString(dst, bytes.ToLower(name)) // a long name: rare, allowed to allocate
		return appendString(dst, value)
	}
	n := low[:len(name)]
	for i, c := range name {
		n[i] = ascii.Lower(c)
	}
	if _, conn := connectionFields[string(n)]; conn {
		return dst
	}
	if idx, ok := staticNames[string(n)]; ok {
		dst = appendInt(dst, 4, 0, uint64(idx))
	} else {
		dst = append(dst, 0)
		dst = appendString(dst, n)
	}
	return appendString(dst, value)
}

// connectionFields are the fields RFC 9113 8.2.2 forbids in HTTP/2.
var connectionFields = map[string]struct{}{
	"connection": {}, "keep-alive": {}, "proxy-connection": {}, "transfer-encoding": {}, "upgrade": {},
}

// staticNames are the static table's indexes (RFC 7541 Appendix A) of the
// names an answer may carry.
var staticNames = map[string]uint8{
	"accept-ranges": 18, "access-control-allow-origin": 20, "age": 21, "allow": 22,
	"cache-control": 24, "content-disposition": 25, "content-encoding": 26, "content-language": 27,
	"content-length": 28, "content-location": 29, "content-range": 30, "content-type": 31,
	"date": 33, "etag": 34, "expires": 36, "last-modified": 44, "link": 45, "location": 46,
	"proxy-authenticate": 48, "refresh": 52, "retry-after": 53, "server": 54, "set-cookie": 55,
	"strict-transport-security": 56, "vary": 59, "via": 60, "www-authenticate": 61,
}

// statusIndex is the static table's index of :status s, 0 when it has
// none.
func statusIndex(s int) byte {
	switch s {
	case 200:
		return 8
	case 204:
		return 9
	case 206:
		return 10
	case 304:
		return 11
	case 400:
		return 12
	case 404:
		return 13
	case 500:
		return 14
	}
	return 0
}

// appendString appends a string literal (RFC 7541 5.2), Huffman-coded
// when that is shorter.
func appendString(dst, s []byte) []byte {
	// hpack reads the string and keeps nothing of it.
	str := unsafe.String(unsafe.SliceData(s), len(s))
	if n := hpack.HuffmanEncodeLength(str); n < uint64(len(s)) {
		dst = appendInt(dst, 7, 0x80, n)
		return hpack.AppendHuffmanString(dst, str)
	}
	dst = appendInt(dst, 7, 0, uint64(len(s)))
	return append(dst, s...)
}

// appendInt appends v as an HPACK integer with an n-bit prefix, the bits
// above it set to first (RFC 7541 5.1).
func appendInt(dst []byte, n uint, first byte, v uint64) []byte {
	k := uint64(1)<<n - 1
	if v < k {
		return append(dst, first|byte(v))
	}
	dst = append(dst, first|byte(k))
	v -= k
	for v >= 128 {
		dst = append(dst, byte(v&0x7f|0x80))
		v >>= 7
	}
	return append(dst, byte(v))
}
