package netlify

import (
	"regexp"
	"testing"
)

// TestSplatAfterText checks a splat after a character other than '/':
// Netlify's "an asterisk matches anything that follows it", so
// /docs/kubectl_* takes /docs/kubectl_apply and /docs/kubectl_set/image,
// but not /docs/kubectl or /docs/other. The model (match) and the regex
// written for it agree.
func TestSplatAfterText(t *testing.T) {
	tests := []struct {
		from string
		path string
		want bool
	}{
		{"/docs/kubectl_*", "/docs/kubectl_apply", true},
		{"/docs/kubectl_*", "/docs/kubectl_", true},
		{"/docs/kubectl_*", "/docs/kubectl_set/image", true},
		{"/docs/kubectl_*", "/docs/kubectl_apply/", true},
		{"/docs/kubectl_*", "/docs/kubectl", false},
		{"/docs/kubectl_*", "/docs/other", false},
		{"/docs/kubectl_*", "/docs", false},
		{"/v1.*", "/v1.2", true},
		{"/v1.*", "/v1.2/install", true},
		{"/v1.*", "/v2.0", false},
		{"/a/:p/x*", "/a/q/xyz", true},
		{"/a/:p/x*", "/a/q/y", false},
	}
	for _, tt := range tests {
		p, err := parsePattern(tt.from)
		if err != nil {
			t.Errorf("%s: %v", tt.from, err)
			continue
		}
		if got := p.match(tt.path); got != tt.want {
			t.Errorf("%s on %s: model %v, want %v", tt.from, tt.path, got, tt.want)
		}
		re := regexp.MustCompile("^" + p.regex() + "$")
		if got := re.MatchString(tt.path); got != tt.want {
			t.Errorf("%s on %s: regex %s %v, want %v", tt.from, tt.path, re, got, tt.want)
		}
	}
	for _, from := range []string{"/a/:p*", "/a*b*", "/a/*/b"} {
		if _, err := parsePattern(from); err == nil {
			t.Errorf("%s: no error", from)
		}
	}
}
