package matcher

import (
	"regexp/syntax"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/redirectd/redirectd/matcher/pcre"
)

// nginxReadings are regexes RE2 accepts and reads otherwise than nginx's
// PCRE (regex_nginx.go; matcher/pcre's TestNginxAgrees has a real nginx
// confirm each reading), and some it reads alike, with how
// nginxReading classes them and subjects to run them on.
var nginxReadings = []struct {
	re       string
	pcreOnly bool
	on       uint8
	subjects []string
}{
	{`^/tags/(?P<first>.*)+(?P<second>.*)$`, true, 0, []string{"/tags/xx", "/tags/", "/x"}},
	{`x(?:\B|[^a])*`, true, 0, []string{"/x00", "/xa", "/x"}},
	{`^/(a*)+$`, true, 0, []string{"/aa", "/"}},
	{`^/(a|)*?b`, true, 0, []string{"/aab"}},
	{`^/(?:a?){2,}$`, true, 0, []string{"/aaa"}},
	{`^/a\v`, true, 0, []string{"/a\n", "/a\v", "/a"}},
	{`^/(a+)+$`, false, readsFinalNewline, []string{"/aa", "/aa\n"}},
	{`^/(?:a?){2}$`, false, readsFinalNewline, []string{"/a", "/a\n"}},
	{`^/old$`, false, readsFinalNewline, []string{"/old", "/old\n", "/old\n\n"}},
	{`(?m)^/old$`, false, 0, []string{"/old", "/old\n"}},
	{`^/old\z`, false, 0, []string{"/old", "/old\n"}},
	{`^/(.)(.*)`, false, readsHighBytes, []string{"/é", "/ab"}},
	{`^/caf[^a]$`, false, readsFinalNewline | readsHighBytes, []string{"/café", "/cafe"}},
	{`(?i)^/k\.html`, false, readsHighBytes, []string{"/\u212a.html", "/K.html"}},
	{`(?i)^/abc`, false, 0, []string{"/ABC", "/abc"}},
	{`^/a\s(\S+)`, false, readsVT | readsHighBytes, []string{"/a\vb", "/a b\v", "/a bé"}},
	{`^/[a-z]+/\d+\b`, false, 0, []string{"/ab/12", "/ab/12é"}},
	// a run of any byte between ASCII literals reads alike
	{`^(.*)/usage/?$`, false, readsFinalNewline, []string{"/é/usage", "/é/usage\n", "/\xc3/usage"}},
	{`^/docs/([^/]+)/(.*)\.html`, false, 0, []string{"/docs/é/x\xa9.html", "/docs/\xc3/.html"}},
	{`^/docs/([^/]+)/(.*)`, false, readsHighBytes, []string{"/docs/é/x\xa9", "/docs/\xc3/"}},
	{`^/(.*)(.*)$`, false, readsFinalNewline | readsHighBytes, []string{"/é"}},
	{`(.*)/x`, false, readsHighBytes, []string{"\n/é/x"}},
}

// TestNginxReading checks how each regex is classed, and that a Pattern
// answers on every subject as package pcre does, captures included,
// allocating nothing.
func TestNginxReading(t *testing.T) {
	for _, c := range nginxReadings {
		re, err := syntax.Parse(c.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		pcreOnly, on := nginxReading(c.re, re)
		if pcreOnly != c.pcreOnly || on != c.on {
			t.Errorf("nginxReading(%q) = %v, %03b; want %v, %03b", c.re, pcreOnly, on, c.pcreOnly, c.on)
		}
		p, err := CompilePattern(c.re)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pcre.Compile(c.re, false)
		if err != nil {
			t.Fatal(err)
		}
		var s Scratch
		var ps pcre.Scratch
		for _, subj := range c.subjects {
			in := []byte(subj)
			caps := make([]int, 2*(p.NumCap()+1))
			wantCaps := make([]int, len(caps))
			budget := 1 << 20
			ok, _ := want.Match(&ps, in, wantCaps, &budget)
			if got := p.Match(&s, in, caps); got != ok || ok && !cmp.Equal(caps, wantCaps) {
				t.Errorf("%q on %q: %v %v, want nginx's %v %v", c.re, subj, got, caps, ok, wantCaps)
			}
			// Either engine, chosen per subject, allocates nothing.
			if n := testing.AllocsPerRun(20, func() { s.ResetSteps(); p.Match(&s, in, caps) }); n != 0 {
				t.Errorf("%q on %q: %v allocations", c.re, subj, n)
			}
		}
	}
}

// TestNginxRegexesSet checks that a Set built with NginxRegexes answers a
// loop that can match empty as nginx does, and one without it as RE2.
func TestNginxRegexesSet(t *testing.T) {
	for _, c := range []struct {
		nginx bool
		want  string
	}{{true, "/r//"}, {false, "/r/xx/"}} {
		b := NewBuilder(DefaultLimits)
		if c.nginx {
			b.NginxRegexes()
		}
		r := Rule{Kind: Regex, From: `^/tags/(.*)+(.*)$`, To: "/r/$1/$2", Status: 301, File: "t", Line: 1}
		if err := b.Add(&r); err != nil {
			t.Fatal(err)
		}
		s, err := b.Set()
		if err != nil {
			t.Fatal(err)
		}
		var m Match
		got := ""
		if s.Lookup(nil, []byte("/tags/xx"), nil, &m) {
			got = string(m.AppendLocation(nil, nil))
		}
		if got != c.want {
			t.Errorf("NginxRegexes %v: %q, want %q", c.nginx, got, c.want)
		}
	}
}
