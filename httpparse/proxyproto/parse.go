package proxyproto

import (
	"bytes"
	"encoding/binary"
	"net/netip"

	"github.com/redirectd/redirectd/httpparse"
)

// Bounds on what Parse waits for.
const (
	// MaxV1 is the longest version 1 line, CRLF included (the spec's
	// worst case: "PROXY UNKNOWN ffff:...:ffff ffff:...:ffff 65535 65535\r\n").
	MaxV1 = 107
	// MaxV2Body bounds a version 2 header's length field (the bytes after
	// its 16-byte prefix: addresses and TLVs). The spec allows 65535; the
	// address blocks need at most 216, and a client certificate in a TLV
	// fits in 4 KiB, the bound github.com/pires/go-proxyproto uses too.
	MaxV2Body = 4096
)

// sigV2 begins every version 2 header (spec section 2.2).
const sigV2 = "\r\n\r\n\x00\r\nQUIT\n"

// Command says whether a header carries the client's addresses.
type Command uint8

const (
	// Proxy: the connection was relayed for the client named in Source.
	Proxy Command = iota
	// Local: the proxy opened the connection itself (a version 2 LOCAL,
	// such as a balancer's health check, or a version 1 UNKNOWN line); the
	// spec says the receiver uses the connection's own endpoints.
	Local
)

// Header is what a PROXY protocol header says about its connection.
type Header struct {
	// Version is 1 (text) or 2 (binary).
	Version uint8
	Command Command
	// Source is the client's address and port, Destination the address
	// and port it connected to on the proxy. Both are zero for Local and
	// for the AF_UNIX families of version 2; an IPv4-mapped IPv6 address
	// in a TCP6 line or an AF_INET6 block is returned as it was sent.
	Source, Destination netip.AddrPort
}

// Parse reads the header at the start of b into h. It returns the header's
// length, or (0, nil) while b is a valid prefix of a header, or
// ErrMissing or ErrMalformed; see the package comment. h is written only
// when a whole header was read.
func Parse(b []byte, h *Header) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	switch b[0] {
	case 'P':
		return parseV1(b, h)
	case '\r':
		return parseV2(b, h)
	}
	return 0, ErrMissing
}

// parseV1 reads a version 1 line (spec section 2.1):
//
//	"PROXY" SP ( "TCP4" | "TCP6" ) SP src SP dst SP sport SP dport CRLF
//	"PROXY" SP "UNKNOWN" [ SP anything ] CRLF
//
// with exactly one space between fields, addresses in the family's
// textual form and ports as 0 to 65535 without leading zeros.
func parseV1(b []byte, h *Header) (int, error) {
	const sig = "PROXY "
	if n := min(len(b), len(sig)); string(b[:n]) != sig[:n] {
		if n < 5 || string(b[:5]) != sig[:5] {
			return 0, ErrMissing
		}
		return 0, ErrMalformed // "PROXY" not followed by its space
	}
	lf := bytes.IndexByte(b[:min(len(b), MaxV1)], '\n')
	if lf < 0 {
		if len(b) >= MaxV1 {
			return 0, ErrMalformed
		}
		return 0, nil
	}
	if lf < len(sig)+1 || b[lf-1] != '\r' {
		return 0, ErrMalformed
	}
	proto, rest, more := bytes.Cut(b[len(sig):lf-1], []byte{' '})
	switch string(proto) {
	case "UNKNOWN":
		*h = Header{Version: 1, Command: Local}
		return lf + 1, nil
	case "TCP4", "TCP6":
	default:
		return 0, ErrMalformed
	}
	if !more {
		return 0, ErrMalformed
	}
	var f [4][]byte
	for i := range f {
		f[i], rest, more = bytes.Cut(rest, []byte{' '})
		if more != (i < len(f)-1) {
			return 0, ErrMalformed
		}
	}
	v6 := proto[3] == '6'
	src, ok1 := v1Addr(f[0], v6)
	dst, ok2 := v1Addr(f[1], v6)
	sport, ok3 := v1Port(f[2])
	dport, ok4 := v1Port(f[3])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, ErrMalformed
	}
	*h = Header{Version: 1, Command: Proxy,
		Source: netip.AddrPortFrom(src, sport), Destination: netip.AddrPortFrom(dst, dport)}
	return lf + 1, nil
}

// v1Addr parses an address of a TCP4 (dotted quad) or TCP6 line (an IPv6
// address, IPv4-mapped ones included: the spec says the family dictates
// the format, so a plain dotted quad in a TCP6 line is refused).
func v1Addr(b []byte, v6 bool) (netip.Addr, bool) {
	a, ok := httpparse.ParseIP(b)
	return a, ok && a.Is6() == v6
}

func v1Port(b []byte) (uint16, bool) {
	if len(b) == 0 || len(b) > 5 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return uint16(n), n <= 0xffff
}

// Version 2 fields (spec section 2.2): the 13th byte is the version (2)
// and command, the 14th the address family and transport.
const (
	cmdLocal = 0x20
	cmdProxy = 0x21
)

// addrLen returns the address block's length for a family byte the spec
// defines (AF_UNSPEC, AF_INET, AF_INET6, AF_UNIX, each as stream or
// datagram), and false for any other, which the spec says "must be
// rejected as invalid".
func addrLen(fam byte) (int, bool) {
	switch fam {
	case 0x00:
		return 0, true
	case 0x11, 0x12:
		return 12, true
	case 0x21, 0x22:
		return 36, true
	case 0x31, 0x32:
		return 216, true
	}
	return 0, false
}

// parseV2 reads a version 2 header: the 12-byte signature, version and
// command, family, a big-endian length, then that many bytes: the address
// block and TLVs, which are skipped. Each field is checked as soon as its
// byte is there, so a bad header is refused without waiting for its body.
func parseV2(b []byte, h *Header) (int, error) {
	if n := min(len(b), len(sigV2)); string(b[:n]) != sigV2[:n] {
		return 0, ErrMissing
	}
	if len(b) > 12 && b[12] != cmdLocal && b[12] != cmdProxy {
		return 0, ErrMalformed
	}
	if len(b) > 13 {
		// PROXY with AF_UNSPEC names no client: refused, as the library does.
		if _, ok := addrLen(b[13]); !ok || b[13] == 0x00 && b[12] == cmdProxy {
			return 0, ErrMalformed
		}
	}
	if len(b) < 16 {
		return 0, nil
	}
	cmd, fam := b[12], b[13]
	n := int(binary.BigEndian.Uint16(b[14:16]))
	if need, _ := addrLen(fam); n > MaxV2Body || cmd == cmdProxy && n < need {
		return 0, ErrMalformed
	}
	if len(b) < 16+n {
		return 0, nil
	}
	*h = Header{Version: 2, Command: Proxy}
	a := b[16:]
	switch {
	case cmd == cmdLocal:
		// The spec: the receiver must skip the block and use the real
		// connection endpoints.
		h.Command = Local
	case fam>>4 == 1:
		h.Source = netip.AddrPortFrom(netip.AddrFrom4([4]byte(a[0:4])), binary.BigEndian.Uint16(a[8:10]))
		h.Destination = netip.AddrPortFrom(netip.AddrFrom4([4]byte(a[4:8])), binary.BigEndian.Uint16(a[10:12]))
	case fam>>4 == 2:
		h.Source = netip.AddrPortFrom(netip.AddrFrom16([16]byte(a[0:16])), binary.BigEndian.Uint16(a[32:34]))
		h.Destination = netip.AddrPortFrom(netip.AddrFrom16([16]byte(a[16:32])), binary.BigEndian.Uint16(a[34:36]))
	}
	return 16 + n, nil
}
