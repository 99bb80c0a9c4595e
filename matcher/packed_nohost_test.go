package matcher

import (
	"strings"
	"testing"
)

// TestNamesNoHost holds namesNoHost, which reads only up to the host's
// first byte, to the definition it shortens: the host that authorityEnd
// delimits, its leading slashes trimmed, is empty or starts with '$'.
func TestNamesNoHost(t *testing.T) {
	slow := func(to string) bool {
		end := authorityEnd(to)
		if end < 0 {
			return false
		}
		host := strings.TrimLeft(to[schemeEnd(to):end], "/\\")
		return host == "" || host[0] == '$'
	}
	parts := []string{"", "/", "\\", "//", "https:", "a+b:", "1x:", "h", "$host", "?q", "#f", ":", "x.y", "/p"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				to := a + b + c
				if got, want := namesNoHost(to), slow(to); got != want {
					t.Errorf("namesNoHost(%q) = %v, want %v", to, got, want)
				}
			}
		}
	}
}

// FuzzNamesNoHost is TestNamesNoHost on any input.
func FuzzNamesNoHost(f *testing.F) {
	f.Add("https:///x")
	f.Add("//$host/a")
	f.Fuzz(func(t *testing.T, to string) {
		end := authorityEnd(to)
		want := false
		if end >= 0 {
			host := strings.TrimLeft(to[schemeEnd(to):end], "/\\")
			want = host == "" || host[0] == '$'
		}
		if got := namesNoHost(to); got != want {
			t.Errorf("namesNoHost(%q) = %v, want %v", to, got, want)
		}
	})
}
