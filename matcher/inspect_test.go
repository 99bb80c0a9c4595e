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
		{"https://$host:8443$path", Regex, false},
		{"https://$host:8443$1", Regex, true},
	}
	for _, tc := range tests {
		if got := JoinsHost(tc.to, tc.kind); got != tc.want {
			t.Errorf("JoinsHost(%q, %v) = %v, want %v", tc.to, tc.kind, got, tc.want)
		}
	}
}

// TestSampleTarget: each reference is filled with a value the server
// could send where it stands, so that check never refuses its own
// placeholder: a path after a literal port stays a path.
func TestSampleTarget(t *testing.T) {
	tests := []struct {
		to   string
		kind Kind
		want string
	}{
		{"https://${host}:18443${path}", Regex, "https://x:18443/x"},
		{"https://$host:18443$request_uri", Regex, "https://x:18443/x"},
		{"https://$host:18443/b/$1", Regex, "https://x:18443/b/x"},
		{"https://example.com$1", Regex, "https://example.com/x"},
		{"https://example.com:8443${1}?a=$2", Regex, "https://example.com:8443/x?a=x"},
		{"https://example.com:8443$host", Regex, "https://example.com:8443x"}, // what the server sends: invalid
		{"/n/$1", Regex, "/n/x"},
		{"${u}", Regex, "x"},
		{"/cost/$$5/$1", Regex, "/cost/$5/x"},
		{"https://example.com:8443$1", Prefix, "https://example.com:8443$1"},
	}
	for _, tc := range tests {
		if got := SampleTarget(tc.to, tc.kind); got != tc.want {
			t.Errorf("SampleTarget(%q, %v) = %q, want %q", tc.to, tc.kind, got, tc.want)
		}
	}
}
