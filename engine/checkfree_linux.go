package engine

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// checkFree reports an error when another socket listens on addr, a result
// of resolveListen, or on an address that overlaps it on the same port:
// every socket of ours binds with SO_REUSEPORT, which would join another
// instance's group and split the traffic with it in silence. It reads the
// kernel's table of TCP sockets (/proc/net/tcp and tcp6, of this network
// namespace) rather than trying a bind without SO_REUSEPORT: that bind
// also fails on the TIME_WAIT connections a stopped instance leaves
// (they keep its sockets' options), so a restart would be refused for a
// minute.
func checkFree(addr string) error {
	ap, err := boundAddr(addr)
	if err != nil {
		return err
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		l, found, err := listenerOn(table, ap)
		if err != nil {
			return fmt.Errorf("cannot tell whether %s is in use: %w", addr, err)
		}
		if found {
			return fmt.Errorf("cannot serve on %s: address already in use (a process listens on %s: another redirectd, or another server): stop it first, or start this one with serve -upgrade to take over from it without downtime", addr, l)
		}
	}
	return nil
}

// listenerOn returns a listening socket of the table whose address
// overlaps ap's. A missing table (no IPv6) holds none.
func listenerOn(table string, ap netip.AddrPort) (netip.AddrPort, bool, error) {
	f, err := os.Open(table)
	if os.IsNotExist(err) {
		return netip.AddrPort{}, false, nil
	}
	if err != nil {
		return netip.AddrPort{}, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[3] != "0A" { // TCP_LISTEN
			continue
		}
		l, ok := parseProcAddr(fields[1])
		if ok && l.Port() == ap.Port() && overlaps(ap.Addr(), l.Addr()) {
			return l, true, nil
		}
	}
	return netip.AddrPort{}, false, sc.Err()
}

// parseProcAddr reads an address of /proc/net/tcp: the address in hex, as
// the kernel holds it (32-bit words in host order, little-endian here),
// a colon and the port in hex.
func parseProcAddr(s string) (netip.AddrPort, bool) {
	h, p, ok := strings.Cut(s, ":")
	port, err := strconv.ParseUint(p, 16, 16)
	if !ok || err != nil {
		return netip.AddrPort{}, false
	}
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 4 && len(b) != 16 {
		return netip.AddrPort{}, false
	}
	for i := 0; i < len(b); i += 4 {
		binary.BigEndian.PutUint32(b[i:], binary.LittleEndian.Uint32(b[i:]))
	}
	a, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(a, uint16(port)), true
}

// overlaps reports whether sockets bound to a and b on one port would
// both receive some connection: the same address, or a wildcard of the
// other's family (an IPv6 wildcard is taken to cover IPv4 too, as gnet
// and Go bind it).
func overlaps(a, b netip.Addr) bool {
	a, b = a.Unmap(), b.Unmap()
	switch {
	case a == b:
		return true
	case a.IsUnspecified() && b.IsUnspecified():
		return true
	case a.IsUnspecified():
		return a.Is6() || b.Is4()
	case b.IsUnspecified():
		return b.Is6() || a.Is4()
	}
	return false
}
