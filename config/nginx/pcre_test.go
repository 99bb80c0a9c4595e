package nginx

import (
	"regexp"
	"strings"
	"testing"
)

func TestToRE2(t *testing.T) {
	tests := []struct {
		pcre string
		ci   bool
		want string // "" when unchanged
		err  string // a fragment of the error, when refused
	}{
		{pcre: `^/a\-b\/c\.d$`},
		{pcre: `^/GPT-3\).*$`},
		{pcre: `^/a\Z`, want: `^/a\z`},
		{pcre: `^/a[\Z]`, err: `\Z inside`},
		{pcre: `^/a\\Z`},
		{pcre: `^/caf\é$`, want: `^/café$`},
		{pcre: `^/a\N+$`, want: `^/a[^\n]+$`},
		{pcre: `^/a\hb$`, want: `^/a[` + pcreH + `]b$`},
		{pcre: `^/a(?#why)b$`, want: `^/ab$`},
		{pcre: `^/(?'id'\d+)$`, want: `^/(?P<id>\d+)$`},
		{pcre: `^/(?<id>\d+)$`},
		{pcre: `^/a/[^/]++/b$`, want: `^/a/[^/]+/b$`},
		{pcre: `^/a/\d*+x$`, want: `^/a/\d*x$`},
		{pcre: `^/a/\d*+$`, want: `^/a/\d*$`},
		{pcre: `^/a/\d*+`, want: `^/a/\d*`},
		{pcre: `^/a/x{3}+y`, want: `^/a/x{3}y`},
		{pcre: `^/a/.*+x$`, err: "possessive"},
		{pcre: `^/a/\w++\d$`, err: "possessive"},
		{pcre: `^/a/[a-z]++X$`, want: `^/a/[a-z]+X$`},
		{pcre: `^/a/[a-z]++X$`, ci: true, err: "possessive"},
		{pcre: `^/a/(ab)*+c$`, err: "possessive"},
		{pcre: `^/a/x++y?x`, err: "possessive"},
		{pcre: `^/(?>foo|bar)/x$`, want: `^/(?:foo|bar)/x$`},
		{pcre: `^/(?>a|ab)c$`, err: "prefix"},
		{pcre: `^/(?>a+)b$`, err: "atomic"},
		{pcre: `^/(a)\1$`, err: "backreference"},
		{pcre: `^/(?=a)`, err: "lookahead"},
		{pcre: `^/(?<!a)b`, err: "lookbehind"},
		{pcre: `^/a*?b+?$`},
		{pcre: `^/\Qa.b\E$`},
		{pcre: `^/[[:alpha:]]+$`},
		{pcre: `^/a\G`, err: `\G`},
	}
	for _, tt := range tests {
		t.Run(tt.pcre, func(t *testing.T) {
			got, changed, err := toRE2(tt.pcre, tt.ci)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("toRE2(%q) = %q, %v; want an error with %q", tt.pcre, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("toRE2(%q): %v", tt.pcre, err)
			}
			want := tt.want
			if want == "" {
				want = tt.pcre
			}
			if got != want || changed != (tt.want != "") {
				t.Errorf("toRE2(%q) = %q, changed %v; want %q", tt.pcre, got, changed, want)
			}
			if _, err := regexp.Compile(got); err != nil {
				t.Errorf("the result does not compile: %v", err)
			}
		})
	}
}

// FuzzToRE2 checks that whatever toRE2 accepts compiles in Go, and that a
// pattern Go reads and toRE2 leaves alone is returned unchanged.
func FuzzToRE2(f *testing.F) {
	for _, s := range []string{`^/a\Z`, `^/p/[^/]++/x$`, `^/(?>foo|bar)/$`, `^/caf\é$`, `^/(?'id'\d+)$`, `^/a(?#c)b`, `[\h\v]+\N`, `a{2}+b`, `\Q.+\E`} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, src string, ci bool) {
		if len(src) > 200 {
			return
		}
		got, changed, err := toRE2(src, ci)
		if err != nil {
			return
		}
		if _, err := regexp.Compile(got); err != nil {
			if _, err0 := regexp.Compile(src); err0 == nil {
				t.Fatalf("toRE2(%q) = %q, which Go refuses (%v) though it reads the input", src, got, err)
			}
		}
		if !changed && got != src {
			t.Fatalf("toRE2(%q) = %q, reported unchanged", src, got)
		}
	})
}
