package regexsample

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampled is what each of the three functions gives for an expression,
// "-" where it gives none.
type sampled struct{ Of, Least, Path string }

func sampleAll(expr string) sampled {
	or := func(s string, ok bool) string {
		if !ok {
			return "-"
		}
		return s
	}
	return sampled{or(Of(expr)), or(Least(expr)), or(Path(expr))}
}

// TestSample: the string made for an expression is one it matches, with
// its optional parts once (Of, Path) or not at all (Least), and Path's
// starts with '/'.
func TestSample(t *testing.T) {
	tests := []struct {
		expr string
		want sampled
	}{
		{`^/blog/(\d{4})/(?P<slug>[a-z0-9-]+)/?$`, sampled{"/blog/0000/a/", "/blog/0000/a", "/blog/0000/a/"}},
		{`^/p/(\d+)$`, sampled{"/p/0", "/p/0", "/p/0"}},
		{`^/(en|de)/docs/(.*)$`, sampled{"/en/docs/x", "/en/docs/", "/en/docs/x"}},
		{`(?i)^/OLD/[^/]+\.html$`, sampled{"/OLD/a.HTML", "/OLD/a.HTML", "/OLD/a.HTML"}},
		{`^/a(b)?$`, sampled{"/ab", "/a", "/ab"}},
		{`^/x{3}y{0,2}$`, sampled{"/xxxyy", "/xxx", "/xxxyy"}},
		{`^/x{2,}$`, sampled{"/xx", "/xx", "/xx"}},
		// A .htaccess's RewriteRule matches the path below its folder.
		{`legacy`, sampled{"legacy", "legacy", "/legacy"}},
		{`^old/?$`, sampled{"old/", "old", "-"}},
		{`^k=(.*)$`, sampled{"k=x", "k=", "-"}},
		{`^/q\?id=(\d+)$`, sampled{"/q?id=0", "/q?id=0", "/q?id=0"}},
		{`^/[^a-z0-9]$`, sampled{"/-", "/-", "/-"}},
		{`^/[A-Z]$`, sampled{"/A", "/A", "/A"}},
		{`^/[é]$`, sampled{"/é", "/é", "/é"}},
		{`^/a\b/c$`, sampled{"/a/c", "/a/c", "/a/c"}},
		{`^/(a|b)\b`, sampled{"/a", "/a", "/a"}},
		// The first branch, contradicted by what follows, is not undone.
		{`^(?:x\b|/)y$`, sampled{"-", "-", "-"}},
		// Once makes the word boundary fail; the fewest repetitions pass.
		{`^/a(b)*\bc`, sampled{"-", "-", "-"}},
		{`^/a(?:b\b)?$`, sampled{"/ab", "/a", "/ab"}},
		{`^/(x{1000}){5}$`, sampled{"-", "-", "-"}},
		{`^/a\bb$`, sampled{"-", "-", "-"}},
		{`^/[^\x00-\x{10FFFF}]$`, sampled{"-", "-", "-"}},
		{`^/(`, sampled{"-", "-", "-"}},
		{`^x$`, sampled{"x", "x", "-"}},
	}
	for _, tt := range tests {
		got := sampleAll(tt.expr)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.expr, diff)
		}
		for _, s := range []string{got.Of, got.Least, got.Path} {
			if s != "-" && !regexp.MustCompile(tt.expr).MatchString(s) {
				t.Errorf("%s does not match its sample %q", tt.expr, s)
			}
		}
	}
}

// FuzzSample: no expression makes a sampler panic or run past its
// bounds, and every sample is one the expression matches (Path's with a
// leading '/').
func FuzzSample(f *testing.F) {
	for _, s := range []string{`^/blog/(\d{4})/([a-z-]+)/?$`, `(?i)^/a|b\b`, `^/[^/]+\.html$`, `x{2,5}y*`, `((a*)*)*`, `^k=(.*)$`, `\pL+`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		re, err := regexp.Compile(expr)
		for name, fn := range map[string]func(string) (string, bool){"Of": Of, "Least": Least, "Path": Path} {
			s, ok := fn(expr)
			if !ok {
				continue
			}
			if err != nil {
				t.Fatalf("%s(%q) = %q for an expression Go does not compile", name, expr, s)
			}
			if !re.MatchString(s) {
				t.Fatalf("%s(%q) = %q, which it does not match", name, expr, s)
			}
			if len(s) > maxLen+len(expr) {
				t.Fatalf("%s(%q) is %d bytes", name, expr, len(s))
			}
			if name == "Path" && !strings.HasPrefix(s, "/") {
				t.Fatalf("Path(%q) = %q", expr, s)
			}
		}
	})
}
