package httpparse

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
)

func TestValidHost(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"example.com", true},
		{"EXAMPLE.com:443", true},
		{"a", true},
		{"127.0.0.1", true},
		{"127.0.0.1:0", true},
		{"h:65535", true},
		{"h:00080", true},
		{"xn--bcher-kva.example", true},
		{"a%41b", true},
		{strings.Repeat("a", 255), true},
		{strings.Repeat("a", 255) + ":80", true},
		{"[::]", true},
		{"[::1]:80", true},
		{"[1:2:3:4:5:6:7:8]", true},
		{"[1:2:3:4:5:6:7::]", true},
		{"[::2:3:4:5:6:7:8]", true},
		{"[fe80::abcd:1]", true},
		{"[1:2:3:4:5:6:1.2.3.4]", true},
		{"[::ffff:255.255.255.255]", true},

		{"", false},
		{":80", false},
		{"h:", false},
		{"h:123456", false},
		{"h:65536", false},
		{"h:-1", false},
		{"u@h", false},
		{"h/", false},
		{"h?", false},
		{"h#", false},
		{"a b", false},
		{"a%4", false},
		{"a%zz", false},
		{"é.example", false},
		{strings.Repeat("a", 256), false},
		{"[]", false},
		{"[:]", false},
		{"[:::]", false},
		{"[1::2::3]", false},
		{"[1:2:3:4:5:6:7:8:9]", false},
		{"[1:2:3:4:5:6:7]", false},
		{"[1:2:3:4:5:6:7:8::]", false},
		{"[12345::]", false},
		{"[1:]", false},
		{"[:1]", false},
		{"[::1", false},
		{"[::1]80", false},
		{"[::1]:", false},
		{"[::g]", false},
		{"[fe80::1%25eth0]", false},
		{"[v1.x]", false},
		{"[1.2.3.4]", false},
		{"[::1.2.3]", false},
		{"[::1.2.3.256]", false},
		{"[::01.2.3.4]", false},
		{"[::1.2.3.4:5]", false},
	}
	for _, tc := range tests {
		if got := validHost([]byte(tc.in)); got != tc.want {
			t.Errorf("validHost(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzIPv6 checks validIPv6 against net/netip, which implements the same
// RFC 4291 text form (netip also takes zones, which we do not).
func FuzzIPv6(f *testing.F) {
	for _, s := range []string{"::", "::1", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4", "1::2::3", "fe80::1%eth0", "1.2.3.4", "01::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := netip.ParseAddr(s)
		want := err == nil && a.Is6() && a.Zone() == ""
		if got := validIPv6([]byte(s)); got != want {
			t.Errorf("validIPv6(%q) = %v, netip says %v", s, got, want)
		}
	})
}

// FuzzValidHost checks validHost, whose usual name is checked in the pass
// that finds its port, against the plain reading of the grammar: the
// port split off at the first ':', then each part checked on its own.
func FuzzValidHost(f *testing.F) {
	for _, s := range []string{"www.example.com", "a:80", "a:", ":80", "a%41b:8080", "[::1]:80", "a:b:c", "a b", "%4", "é.com", strings.Repeat("a", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		want := false
		switch i := bytes.IndexByte(b, ':'); {
		case len(b) > 0 && b[0] == '[':
			want = validHost(b) // the IPv6 literal takes the same path as before
		case i >= 0:
			want = validPort(b[i+1:]) && validRegName(b[:i])
		default:
			want = validRegName(b)
		}
		if got := validHost(b); got != want {
			t.Errorf("validHost(%q) = %v, want %v", s, got, want)
		}
	})
}
