package proxyproto

import (
	"bufio"
	"bytes"
	"testing"

	pires "github.com/pires/go-proxyproto"
)

func benchInputs() map[string][]byte {
	return map[string][]byte{
		"v1-tcp4":   []byte("PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\nGET / HTTP/1.1\r\n"),
		"v1-tcp6":   []byte("PROXY TCP6 2001:db8:85a3::8a2e:370:7334 2001:db8::2 56324 443\r\n"),
		"v2-tcp4":   v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.2", 56324, 443)),
		"v2-tcp6":   v2(0x21, 0x21, inet6("2001:db8::1", "2001:db8::2", 56324, 443), []byte{4, 0, 3, 1, 2, 3}),
		"v2-local":  v2(0x20, 0x00),
		"http":      []byte("GET / HTTP/1.1\r\n"),
		"malformed": []byte("PROXY TCP4 192.0.2.1 198.51.100.2 56324 0443\r\n"),
	}
}

// BenchmarkParse measures reading one header from a connection's first
// bytes, per version and family, and refusing a plain HTTP request.
func BenchmarkParse(b *testing.B) {
	for name, in := range benchInputs() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			var h Header
			for b.Loop() {
				Parse(in, &h)
			}
		})
	}
}

// BenchmarkPiresRead is the baseline: github.com/pires/go-proxyproto's
// Read on the same bytes, from a bufio.Reader as a net.Conn would give it.
func BenchmarkPiresRead(b *testing.B) {
	for name, in := range benchInputs() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			rd := bytes.NewReader(in)
			br := bufio.NewReader(rd)
			for b.Loop() {
				rd.Reset(in)
				br.Reset(rd)
				pires.Read(br)
			}
		})
	}
}
