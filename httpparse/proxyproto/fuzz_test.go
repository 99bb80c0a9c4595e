package proxyproto

import (
	"bufio"
	"bytes"
	"net"
	"net/netip"
	"testing"

	pires "github.com/pires/go-proxyproto"
)

// FuzzParseVsPires parses the same bytes with Parse and with
// github.com/pires/go-proxyproto's Read, given every byte at once, and
// requires the same verdict and, for an accepted PROXY command, the same
// addresses and header length. Parse waiting for more bytes counts as a
// refusal here: the library, reading to the end of the input, refuses a
// header cut short. The differences the package comment lists are the
// only ones allowed.
func FuzzParseVsPires(f *testing.F) {
	for _, s := range []string{
		"PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\nGET / HTTP/1.1\r\n\r\n",
		"PROXY TCP6 2001:db8::1 2001:db8::2 1 65535\r\n",
		"PROXY TCP6 ::ffff:192.0.2.1 ::1 0 80\r\n",
		"PROXY UNKNOWN\r\n",
		"PROXY UNKNOWN a b c\r\n",
		"PROXY TCP4 1.2.3.4 1.2.3.4 01 2\r\n",
		"PROXY TCP4 1.2.3.4 1.2.3.4 1 2\n",
		"GET / HTTP/1.1\r\n\r\n",
		string(v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.2", 56324, 443))),
		string(v2(0x21, 0x21, inet6("2001:db8::1", "::ffff:1.2.3.4", 1, 2), []byte{4, 0, 1, 0})),
		string(v2(0x20, 0x00)),
		string(v2(0x20, 0x11, []byte{1})),
		string(v2(0x21, 0x31, make([]byte, 216))),
		string(v2(0x21, 0x13, make([]byte, 12))),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 2*(16+MaxV2Body) {
			return
		}
		var h Header
		n, err := Parse(in, &h)
		if n < 0 || n > len(in) || err != nil && n != 0 {
			t.Fatalf("Parse = %d, %v", n, err)
		}
		accepted := n > 0
		r := bufio.NewReaderSize(bytes.NewReader(in), len(in)+16)
		ph, perr := pires.Read(r)
		if accepted != (perr == nil) {
			t.Fatalf("Parse = %d, %v; pires.Read = %v: verdicts differ on %q", n, err, perr, in)
		}
		if !accepted {
			return
		}
		if used := len(in) - r.Buffered(); used != n {
			t.Fatalf("Parse read %d bytes, pires.Read %d, of %q", n, used, in)
		}
		if int(h.Version) != int(ph.Version) || (h.Command == Local) != ph.Command.IsLocal() {
			t.Fatalf("Parse: version %d, command %d; pires: version %d, command %v", h.Version, h.Command, ph.Version, ph.Command)
		}
		if h.Command == Local {
			return // the library may return informational addresses; the caller ignores them
		}
		src, dst := addrPort(ph.SourceAddr), addrPort(ph.DestinationAddr)
		if h.Source != src || h.Destination != dst {
			t.Fatalf("Parse: %v -> %v; pires: %v -> %v, from %q", h.Source, h.Destination, src, dst, in)
		}
	})
}

// addrPort converts the library's address to Header's form: AF_UNIX
// paths have none, and become the zero AddrPort as in Header.
func addrPort(a net.Addr) netip.AddrPort {
	var ip net.IP
	var port int
	switch a := a.(type) {
	case *net.TCPAddr:
		ip, port = a.IP, a.Port
	case *net.UDPAddr:
		ip, port = a.IP, a.Port
	default:
		return netip.AddrPort{}
	}
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return netip.AddrPort{}
	}
	return netip.AddrPortFrom(addr, uint16(port))
}
