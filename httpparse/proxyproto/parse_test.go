package proxyproto

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// v2 builds a version 2 header: command, family, the address block and
// TLV bytes as given.
func v2(cmd, fam byte, body ...[]byte) []byte {
	var n int
	for _, p := range body {
		n += len(p)
	}
	b := append([]byte(sigV2), cmd, fam, byte(n>>8), byte(n))
	for _, p := range body {
		b = append(b, p...)
	}
	return b
}

func inet4(src, dst string, sport, dport uint16) []byte {
	s, d := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	b := append(s[:], d[:]...)
	b = binary.BigEndian.AppendUint16(b, sport)
	return binary.BigEndian.AppendUint16(b, dport)
}

func inet6(src, dst string, sport, dport uint16) []byte {
	s, d := netip.MustParseAddr(src).As16(), netip.MustParseAddr(dst).As16()
	b := append(s[:], d[:]...)
	b = binary.BigEndian.AppendUint16(b, sport)
	return binary.BigEndian.AppendUint16(b, dport)
}

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

func TestParse(t *testing.T) {
	tlv := []byte{0x04, 0x00, 0x03, 'a', 'b', 'c'} // PP2_TYPE_NOOP, skipped
	for _, tc := range []struct {
		name string
		in   string
		n    int // the header's length; the rest of in follows it
		want Header
		err  error
	}{
		{name: "v1 tcp4", in: "PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\nGET / HTTP/1.1\r\n", n: 45,
			want: Header{1, Proxy, ap("192.0.2.1:56324"), ap("198.51.100.2:443")}},
		{name: "v1 tcp6", in: "PROXY TCP6 2001:db8::1 2001:db8::2 1 65535\r\n", n: 44,
			want: Header{1, Proxy, ap("[2001:db8::1]:1"), ap("[2001:db8::2]:65535")}},
		{name: "v1 tcp6 mapped", in: "PROXY TCP6 ::ffff:192.0.2.1 ::1 0 80\r\n", n: 38,
			want: Header{1, Proxy, ap("[::ffff:192.0.2.1]:0"), ap("[::1]:80")}},
		{name: "v1 unknown", in: "PROXY UNKNOWN\r\n", n: 15, want: Header{Version: 1, Command: Local}},
		{name: "v1 unknown with fields", in: "PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n", n: 35, want: Header{Version: 1, Command: Local}},
		{name: "v1 longest", in: "PROXY UNKNOWN " + strings.Repeat("f", 107-16) + "\r\n", n: 107, want: Header{Version: 1, Command: Local}},

		{name: "v1 too long", in: "PROXY UNKNOWN " + strings.Repeat("f", 107-15) + "\r\n", err: ErrMalformed},
		{name: "v1 no space after PROXY", in: "PROXYTCP4 1.2.3.4 1.2.3.4 1 2\r\n", err: ErrMalformed},
		{name: "v1 bare LF", in: "PROXY TCP4 1.2.3.4 1.2.3.4 1 2\n", err: ErrMalformed},
		{name: "v1 two spaces", in: "PROXY TCP4  1.2.3.4 1.2.3.4 1 2\r\n", err: ErrMalformed},
		{name: "v1 trailing field", in: "PROXY TCP4 1.2.3.4 1.2.3.4 1 2 3\r\n", err: ErrMalformed},
		{name: "v1 missing port", in: "PROXY TCP4 1.2.3.4 1.2.3.4 1\r\n", err: ErrMalformed},
		{name: "v1 leading zero port", in: "PROXY TCP4 1.2.3.4 1.2.3.4 01 2\r\n", err: ErrMalformed},
		{name: "v1 port over 65535", in: "PROXY TCP4 1.2.3.4 1.2.3.4 65536 2\r\n", err: ErrMalformed},
		{name: "v1 leading zero octet", in: "PROXY TCP4 1.2.3.04 1.2.3.4 1 2\r\n", err: ErrMalformed},
		{name: "v1 ipv6 in tcp4", in: "PROXY TCP4 ::1 ::1 1 2\r\n", err: ErrMalformed},
		{name: "v1 ipv4 in tcp6", in: "PROXY TCP6 1.2.3.4 1.2.3.4 1 2\r\n", err: ErrMalformed},
		{name: "v1 zone", in: "PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n", err: ErrMalformed},
		{name: "v1 lower case", in: "PROXY tcp4 1.2.3.4 1.2.3.4 1 2\r\n", err: ErrMalformed},
		{name: "v1 empty", in: "PROXY \r\n", err: ErrMalformed},
		{name: "http", in: "GET / HTTP/1.1\r\n", err: ErrMissing},
		{name: "http POST", in: "POST / HTTP/1.1\r\n", err: ErrMissing},
		{name: "tls", in: "\x16\x03\x01", err: ErrMissing},

		{name: "v2 tcp4", in: string(v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.2", 56324, 443))) + "GET", n: 28,
			want: Header{2, Proxy, ap("192.0.2.1:56324"), ap("198.51.100.2:443")}},
		{name: "v2 tcp4 with tlv", in: string(v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.2", 1, 2), tlv)), n: 34,
			want: Header{2, Proxy, ap("192.0.2.1:1"), ap("198.51.100.2:2")}},
		{name: "v2 tcp6", in: string(v2(0x21, 0x21, inet6("2001:db8::1", "2001:db8::2", 1, 2))), n: 52,
			want: Header{2, Proxy, ap("[2001:db8::1]:1"), ap("[2001:db8::2]:2")}},
		{name: "v2 udp4", in: string(v2(0x21, 0x12, inet4("192.0.2.1", "198.51.100.2", 1, 2))), n: 28,
			want: Header{2, Proxy, ap("192.0.2.1:1"), ap("198.51.100.2:2")}},
		{name: "v2 unix", in: string(v2(0x21, 0x31, make([]byte, 216))), n: 232, want: Header{Version: 2, Command: Proxy}},
		{name: "v2 local", in: string(v2(0x20, 0x00)), n: 16, want: Header{Version: 2, Command: Local}},
		{name: "v2 local with addresses", in: string(v2(0x20, 0x11, inet4("192.0.2.1", "198.51.100.2", 1, 2))), n: 28,
			want: Header{Version: 2, Command: Local}},
		{name: "v2 local short block", in: string(v2(0x20, 0x11, []byte{1, 2})), n: 18, want: Header{Version: 2, Command: Local}},
		{name: "v2 largest", in: string(v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.2", 1, 2), make([]byte, MaxV2Body-12))), n: 16 + MaxV2Body,
			want: Header{2, Proxy, ap("192.0.2.1:1"), ap("198.51.100.2:2")}},

		{name: "v2 too large", in: string(v2(0x21, 0x11, make([]byte, MaxV2Body+1))), err: ErrMalformed},
		{name: "v2 version 1", in: string(v2(0x11, 0x11, make([]byte, 12))), err: ErrMalformed},
		{name: "v2 command 2", in: string(v2(0x22, 0x11, make([]byte, 12))), err: ErrMalformed},
		{name: "v2 family 0x13", in: string(v2(0x21, 0x13, make([]byte, 12))), err: ErrMalformed},
		{name: "v2 proxy unspec", in: string(v2(0x21, 0x00)), err: ErrMalformed},
		{name: "v2 short block", in: string(v2(0x21, 0x21, make([]byte, 12))), err: ErrMalformed},
		{name: "v2 bad signature", in: "\r\n\r\n\x00\r\nQUIT\r" + strings.Repeat("\x00", 20), err: ErrMissing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h Header
			n, err := Parse([]byte(tc.in), &h)
			if err != tc.err {
				t.Fatalf("Parse err = %v, want %v", err, tc.err)
			}
			if n != tc.n {
				t.Errorf("Parse n = %d, want %d", n, tc.n)
			}
			if diff := cmp.Diff(tc.want, h, cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })); diff != "" {
				t.Errorf("Header (-want +got):\n%s", diff)
			}
			checkPrefixes(t, []byte(tc.in), n, err)
		})
	}
}

// checkPrefixes holds Parse to its incremental contract on in, whose
// answer is (n, err): every shorter prefix of a header is (0, nil), and
// an error comes no later than the bytes that make it one and stays for
// every longer prefix.
func checkPrefixes(t *testing.T, in []byte, n int, err error) {
	t.Helper()
	var h Header
	sawErr := false
	for i := range len(in) {
		pn, perr := Parse(in[:i], &h)
		switch {
		case err == nil && i < n && (pn != 0 || perr != nil):
			t.Fatalf("prefix of %d bytes: Parse = %d, %v; want 0, nil", i, pn, perr)
		case err == nil && i >= n && (pn != n || perr != nil):
			t.Fatalf("prefix of %d bytes: Parse = %d, %v; want %d, nil", i, pn, perr, n)
		case err != nil && sawErr && perr != err:
			t.Fatalf("prefix of %d bytes: Parse = %d, %v; an error must be final", i, pn, perr)
		case err != nil && perr != nil && perr != err:
			t.Fatalf("prefix of %d bytes: Parse = %v; the whole input gives %v", i, perr, err)
		}
		sawErr = sawErr || perr != nil
	}
}

// TestParseWaitsBounded checks that Parse stops waiting at its bounds: a
// client trickling a header that never ends is answered, not buffered.
func TestParseWaitsBounded(t *testing.T) {
	var h Header
	v1 := []byte("PROXY UNKNOWN " + strings.Repeat("x", 200))
	for i := range len(v1) {
		n, err := Parse(v1[:i], &h)
		if wantErr := i >= MaxV1; (err != nil) != wantErr || n != 0 {
			t.Fatalf("%d bytes of an endless v1 line: Parse = %d, %v", i, n, err)
		}
	}
	long := v2(0x21, 0x11, make([]byte, 0xffff))
	if n, err := Parse(long[:16], &h); err != ErrMalformed || n != 0 {
		t.Errorf("v2 declaring %d bytes: Parse(16 bytes) = %d, %v; want ErrMalformed at once", 0xffff, n, err)
	}
}
