package matcher

import (
	"testing"
)

// TestCoversHost checks which names the rules answer for by host: exact
// hosts and names under a wildcard host, not names that only a host-less
// rule answers.
func TestCoversHost(t *testing.T) {
	s, err := Compile([]Rule{
		{Kind: Exact, From: "/a", To: "/b", Status: 301, Host: "Exact.Example.com"},
		{Kind: Exact, From: "/a", To: "/b", Status: 301, Host: "*.wild.example.com"},
		{Kind: Exact, From: "/any", To: "/b", Status: 301},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"exact.example.com", true},
		{"a.wild.example.com", true},
		{"a.b.wild.example.com", true},
		{"wild.example.com", false},
		{"other.example.com", false},
		{"example.com", false},
		{"", false},
	} {
		if got := s.CoversHost(tc.host); got != tc.want {
			t.Errorf("CoversHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}
