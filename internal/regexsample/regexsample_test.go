package regexsample

import (
	"regexp"
	"testing"
)

// TestRegexSample: the path made for an expression is one it matches.
func TestRegexSample(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`^/blog/(\d{4})/(?P<slug>[a-z0-9-]+)/?$`, "/blog/0000/a/"},
		{`^/p/(\d+)$`, "/p/0"},
		{`^/(en|de)/docs/(.*)$`, "/en/docs/x"},
		{`(?i)^/OLD/[^/]+\.html$`, "/OLD/a.HTML"},
		{`^/a(b)?$`, "/ab"},
		{`^/x{3}y{0,2}$`, "/xxxyy"},
		{`legacy`, "/legacy"},
		{`^/q\?id=(\d+)$`, "/q?id=0"},
		{`^/[^a-z0-9]$`, "/-"},
		{`^/a\b/c$`, "/a/c"},
	}
	for _, tt := range tests {
		got, ok := Path(tt.expr)
		if !ok || got != tt.want {
			t.Errorf("%s: %q %v, want %q", tt.expr, got, ok, tt.want)
			continue
		}
		if !regexp.MustCompile(tt.expr).MatchString(got) {
			t.Errorf("%s does not match its sample %q", tt.expr, got)
		}
	}
	for _, expr := range []string{`^/a\bb$`, `^/[^\x00-\x{10FFFF}]$`, `^/(`, `^x$`} {
		if got, ok := Path(expr); ok {
			t.Errorf("%s: sample %q, want none", expr, got)
		}
	}
}
