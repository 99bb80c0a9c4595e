package matcher

import "testing"

// BenchmarkNginxURI measures building $uri of a plain path and of one
// with escapes, slashes and dot segments.
func BenchmarkNginxURI(b *testing.B) {
	for _, p := range []string{"/exact/9999", "/docs/v2//x/../caf%C3%A9%2Fa+b"} {
		b.Run(p, func(b *testing.B) {
			buf := make([]byte, 0, 64)
			in := []byte(p)
			b.ReportAllocs()
			for b.Loop() {
				buf, _, _ = appendNginxURI(buf[:0], in, true)
			}
		})
	}
}
