package httpparse

import (
	"net/netip"
	"testing"
)

func TestParseIP(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"192.0.2.1", true},
		{"0.0.0.0", true},
		{"255.255.255.255", true},
		{"2001:db8::1", true},
		{"::", true},
		{"::ffff:192.0.2.1", true},
		{"1:2:3:4:5:6:7:8", true},
		{"", false},
		{"192.0.2.01", false},
		{"192.0.2.256", false},
		{"192.0.2", false},
		{"fe80::1%eth0", false},
		{"[::1]", false},
		{"192.0.2.1:80", false},
		{"1:2:3:4:5:6:7:8:9", false},
		{"unknown", false},
		{" 192.0.2.1", false},
	} {
		got, ok := ParseIP([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("ParseIP(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if want, _ := netip.ParseAddr(tc.in); ok && got != want {
			t.Errorf("ParseIP(%q) = %v, want %v", tc.in, got, want)
		}
	}
}

// FuzzParseIP checks ParseIP against netip.ParseAddr: the same address for
// every input, except the zoned addresses ParseIP refuses on purpose.
func FuzzParseIP(f *testing.F) {
	for _, s := range []string{"192.0.2.1", "2001:db8::1", "::ffff:1.2.3.4", "fe80::1%eth0", "1.2.3.04", "::1:2:3:4:5:6:7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseIP([]byte(s))
		want, err := netip.ParseAddr(s)
		if err == nil && want.Zone() != "" {
			if ok {
				t.Fatalf("ParseIP(%q) accepted a zone", s)
			}
			return
		}
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("ParseIP(%q) = %v, %v; netip.ParseAddr = %v, %v", s, got, ok, want, err)
		}
	})
}
