package pcre

import (
	"strings"
	"testing"
)

// BenchmarkWorstCase runs hostile patterns on 8 KiB paths (the default
// max_path_bytes) under the matcher's budget of 65,536 steps: ns/op is
// what one such regex may cost a request.
func BenchmarkWorstCase(b *testing.B) {
	as := strings.Repeat("a", 8192)
	for _, c := range []struct{ name, re, in string }{
		{"nested-plus", `^(a+)+$`, as + "b"},
		{"alt-star", `^(a|aa)*c`, as},
		{"dotstar-lit", `(.*)aa(?!a)x`, as},
		{"lazy", `^(.*?)(.*?)(.*?)x`, as},
		{"backref", `(a*)\1x`, as},
		{"lookahead-star", `(?:(?=a*)a)*x`, as},
		{"atomic", `(?>a*)*x`, as},
		{"class-repeat", `[a-z]*[a-z]*[a-z]*x`, as},
	} {
		b.Run(c.name, func(b *testing.B) {
			re := MustCompile(c.re)
			var s Scratch
			caps := make([]int, 2*(re.NumSubexp()+1))
			in := []byte(c.in)
			for b.Loop() {
				budget := 1 << 16
				re.Match(&s, in, caps, &budget)
			}
		})
	}
}
