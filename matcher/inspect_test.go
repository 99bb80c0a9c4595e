package matcher

import (
	"testing"
)

// TestJoinsHost: check warns where what a rule appends could extend the
// host of its to, and not where it always starts with '/' ($path, $uri),
// since there following its advice would give "//".
func TestJoinsHost(t *testing.T) {
	tests := []struct {
		to   string
		kind Kind
		want bool
	}{
		{"https://example.com${path}", Regex, false},
		{"https://example.com$path", Regex, false},
		{"https://example.com${uri}", Regex, false},
		{"https://example.com$1", Regex, true},
		{"https://example.com${name}", Regex, true},
		{"https://$host$path", Regex, false},
		{"https://example.com/$1", Regex, false},
		{"https://example.com", Prefix, true},
		{"https://example.com/", Prefix, false},
	}
	for _, tc := range tests {
		if got := JoinsHost(tc.to, tc.kind); got != tc.want {
			t.Errorf("JoinsHost(%q, %v) = %v, want %v", tc.to, tc.kind, got, tc.want)
		}
	}
}
