package matcher

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"testing"

	"github.com/redirectd/redirectd/matcher/pcre"
)

// FuzzPattern checks Pattern.Match, filters included: where nginxReading
// says RE2 reads the regex and subject as nginx's PCRE does, against
// package regexp's FindSubmatchIndex and package pcre both (so that a
// reading of PCRE's that nginxReading misses is found), elsewhere
// against package pcre.
func FuzzPattern(f *testing.F) {
	f.Add(`^(.*)/usage/?$`, "/docs/a/usage/")
	f.Add(`\.(png|jpg)$`, "/a/b.jpg")
	f.Add(`(?i)^/Old/(?<rest>.+)$`, "/old/x")
	f.Add(`^/a$`, "/b")
	f.Add(`^/tags/(?<first>.*)+(?<second>.*)$`, "/tags/xx")
	f.Add(`^/a$`, "/a\n")
	f.Add(`^/(.)(.*)`, "/é")
	f.Add(`^/docs/([^/]+)/(.*)\.html`, "/docs/é/x\xa9.html")
	f.Add(`(?i)^/k\s`, "/\u212a\v")
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
		if !got {
			caps = nil
		}
		tree, _ := syntax.Parse(expr, syntax.Perl)
		pcreOnly, on := nginxReading(expr, tree)
		alike := !pcreOnly && !subjectReads([]byte(subject), on)
		if alike && !slices.Equal(caps, re.FindSubmatchIndex([]byte(subject))) {
			t.Fatalf("%q on %q: %v, regexp %v", expr, subject, caps, re.FindSubmatchIndex([]byte(subject)))
		}
		x, err := pcre.Compile(expr, false)
		if err != nil || x.NumSubexp() != p.NumCap() {
			return // refused by package pcre: RE2's reading
		}
		var ps pcre.Scratch
		want := make([]int, 2*(p.NumCap()+1))
		budget := 1 << 22
		m, ex := x.Match(&ps, []byte(subject), want, &budget)
		if ex || s.PCREAbandoned() {
			return
		}
		if !m {
			want = nil
		}
		if !slices.Equal(caps, want) {
			t.Fatalf("%q on %q (alike %v): %v, pcre %v", expr, subject, alike, caps, want)
		}
	})
}
