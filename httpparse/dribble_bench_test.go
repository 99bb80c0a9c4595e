package httpparse

import (
	"fmt"
	"strings"
	"testing"
)

// dribbledHeads are heads at the default limits (a target of 8 KiB and
// 64 KiB of header section, 73 KiB in all), as a slow client sends them
// to make every read parse as much as it can: in many field lines, or in
// one long one.
var dribbledHeads = []struct{ name, head string }{
	{"lines", maxHead(1000)},
	{"one-line", maxHead(defaultMaxHeaderBytes)},
}

// maxHead returns a head whose target and header section are at the
// default limits, the header section in field lines of about lineLen bytes.
func maxHead(lineLen int) string {
	var b strings.Builder
	b.WriteString("GET /" + strings.Repeat("a", defaultMaxTarget-1) + " HTTP/1.1\r\nHost: h\r\n")
	left := defaultMaxHeaderBytes - len("Host: h\r\n") - len("\r\n")
	for i := 0; left > 0; i++ {
		name := fmt.Sprintf("X-%d: ", i)
		n := min(lineLen, left) - len(name) - len("\r\n")
		b.WriteString(name + strings.Repeat("v", n) + "\r\n")
		left -= len(name) + n + len("\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// BenchmarkDribbledHead measures one 73 KiB head arriving a byte per read:
// "parse" calls Parse on everything buffered after each byte, as the
// engine once did; "resume" calls ParseResume, which
// scans only the bytes after where the last call stopped.
func BenchmarkDribbledHead(b *testing.B) {
	for _, hc := range dribbledHeads {
		buf := []byte(hc.head)
		b.Run(hc.name+"/parse", func(b *testing.B) {
			var r Request
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				for k := 1; k < len(buf); k++ {
					if n, err := Parse(buf[:k], &r, nil); n != 0 || err != nil {
						b.Fatalf("prefix of %d bytes: %d, %v", k, n, err)
					}
				}
				if n, err := Parse(buf, &r, nil); n != len(buf) || err != nil {
					b.Fatalf("whole head: %d, %v", n, err)
				}
			}
		})
		b.Run(hc.name+"/resume", func(b *testing.B) {
			var r Request
			var pr Progress
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				for k := 1; k < len(buf); k++ {
					if n, err := ParseResume(buf[:k], &r, nil, &pr); n != 0 || err != nil {
						b.Fatalf("prefix of %d bytes: %d, %v", k, n, err)
					}
				}
				if n, err := ParseResume(buf, &r, nil, &pr); n != len(buf) || err != nil {
					b.Fatalf("whole head: %d, %v", n, err)
				}
			}
		})
	}
}
