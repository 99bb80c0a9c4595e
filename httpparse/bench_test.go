package httpparse

import (
	"bufio"
	"bytes"
	"net/http"
	"testing"
)

var benchHeads = []struct{ name, head string }{
	{"simple", simpleHead},
	{"browser650", browserHead},
}

// BenchmarkParse measures one whole head parsed into a reused Request.
func BenchmarkParse(b *testing.B) {
	for _, bc := range benchHeads {
		b.Run(bc.name, func(b *testing.B) {
			buf := []byte(bc.head)
			var r Request
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(buf, &r, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseSplit measures the worst incremental case: the head arrives
// in two halves, so Parse runs on the first half in vain, then on all of it.
func BenchmarkParseSplit(b *testing.B) {
	buf := []byte(browserHead)
	var r Request
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if n, _ := Parse(buf[:len(buf)/2], &r, nil); n != 0 {
			b.Fatal("half a head parsed")
		}
		if _, err := Parse(buf, &r, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNetHTTP is the baseline: net/http reading the same heads, which
// copies them into strings and a map.
func BenchmarkNetHTTP(b *testing.B) {
	for _, bc := range benchHeads {
		b.Run(bc.name, func(b *testing.B) {
			buf := []byte(bc.head)
			rd := bytes.NewReader(buf)
			br := bufio.NewReader(rd)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				rd.Reset(buf)
				br.Reset(rd)
				if _, err := http.ReadRequest(br); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
