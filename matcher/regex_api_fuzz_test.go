package matcher

import (
	"regexp"
	"slices"
	"testing"
)

// FuzzPattern checks Pattern.Match, filters included, against package
// regexp's FindSubmatchIndex.
func FuzzPattern(f *testing.F) {
	f.Add(`^(.*)/usage/?$`, "/docs/a/usage/")
	f.Add(`\.(png|jpg)$`, "/a/b.jpg")
	f.Add(`(?i)^/Old/(?<rest>.+)$`, "/old/x")
	f.Add(`^/a$`, "/b")
	f.Fuzz(func(t *testing.T, expr, subject string) {
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		p, err := CompilePattern(expr)
		if err != nil {
			return // too large for the backtracker
		}
		var s Scratch
		caps := make([]int, 2*(p.NumCap()+1))
		got := p.Match(&s, []byte(subject), caps)
		want := re.FindSubmatchIndex([]byte(subject))
		if got != (want != nil) || got && !slices.Equal(caps, want) {
			t.Fatalf("%q on %q: %v %v, regexp %v", expr, subject, got, caps, want)
		}
	})
}
