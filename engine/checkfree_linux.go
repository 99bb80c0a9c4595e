package engine

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
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
//
// It asks the kernel first through sock_diag (netlink), for the listening
// sockets on the port only: /proc/net/tcp lists every connection, and on
// a busy host the kernel's formatting of its tens of thousands of lines
// was over half of the start-up's CPU. The tables are the fallback where
// sock_diag is refused: no inet_diag in the kernel, or a sandbox whose
// RestrictAddressFamilies leaves out AF_NETLINK (deploy/redirectd.service
// lets it in for this).
func checkFree(addr string) error {
	ap, err := boundAddr(addr)
	if err != nil {
		return err
	}
	if l, found, err := listenerDiag(ap); err == nil {
		if found {
			return inUse(addr, l)
		}
		return nil
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		l, found, err := listenerOn(table, ap)
		if err != nil {
			return fmt.Errorf("cannot tell whether %s is in use: %w", addr, err)
		}
		if found {
			return inUse(addr, l)
		}
	}
	return nil
}

func inUse(addr string, l netip.AddrPort) error {
	return fmt.Errorf("cannot serve on %s: address already in use (a process listens on %s: another redirectd, or another server): stop it first, or start this one with serve -upgrade to take over from it without downtime", addr, l)
}

// The sock_diag request and answer (linux/inet_diag.h), laid out by hand:
// x/sys/unix has the constants but not these structs.
const (
	diagReqLen  = 56 // struct inet_diag_req_v2
	diagMsgLen  = 72 // struct inet_diag_msg
	tcpfListen  = 1 << 10
	diagDumpMax = 64 << 10
)

// listenerDiag is listenerOn for both tables through sock_diag: the
// kernel walks only its listening sockets and returns those on ap's port.
func listenerDiag(ap netip.AddrPort) (netip.AddrPort, bool, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return netip.AddrPort{}, false, err
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return netip.AddrPort{}, false, err
	}
	buf := make([]byte, diagDumpMax)
	for seq, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		req := make([]byte, unix.NLMSG_HDRLEN+diagReqLen)
		binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
		binary.NativeEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
		binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
		binary.NativeEndian.PutUint32(req[8:], uint32(seq+1))
		r := req[unix.NLMSG_HDRLEN:]
		r[0], r[1] = family, unix.IPPROTO_TCP
		binary.NativeEndian.PutUint32(r[4:], tcpfListen)
		binary.BigEndian.PutUint16(r[8:], ap.Port()) // idiag_sport: the kernel skips other ports
		if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return netip.AddrPort{}, false, err
		}
		l, found, err := readDiag(fd, buf, uint32(seq+1), ap)
		if err != nil || found {
			return l, found, err
		}
	}
	return netip.AddrPort{}, false, nil
}

// readDiag reads the answers to dump seq until its end, and returns the
// first listening socket on ap's port whose address overlaps ap's.
func readDiag(fd int, buf []byte, seq uint32, ap netip.AddrPort) (netip.AddrPort, bool, error) {
	var found netip.AddrPort
	ok := false
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return netip.AddrPort{}, false, err
		}
		for b := buf[:n]; len(b) >= unix.NLMSG_HDRLEN; {
			size := int(binary.NativeEndian.Uint32(b[0:]))
			if size < unix.NLMSG_HDRLEN || size > len(b) {
				return netip.AddrPort{}, false, errors.New("sock_diag: a message cut short")
			}
			typ, mseq, data := binary.NativeEndian.Uint16(b[4:]), binary.NativeEndian.Uint32(b[8:]), b[unix.NLMSG_HDRLEN:size]
			b = b[min(len(b), (size+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)):]
			switch {
			case mseq != seq:
			case typ == unix.NLMSG_DONE:
				return found, ok, nil
			case typ == unix.NLMSG_ERROR:
				return netip.AddrPort{}, false, errors.New("sock_diag refused the dump")
			default:
				if l, yes := diagListener(data, ap); yes && !ok {
					found, ok = l, true
				}
			}
		}
	}
}

// diagListener reads one struct inet_diag_msg: a listening socket on
// ap's port whose address overlaps ap's.
func diagListener(d []byte, ap netip.AddrPort) (netip.AddrPort, bool) {
	if len(d) < diagMsgLen || d[1] != 10 { // TCP_LISTEN
		return netip.AddrPort{}, false
	}
	port := binary.BigEndian.Uint16(d[4:])
	var a netip.Addr
	switch d[0] {
	case unix.AF_INET:
		a = netip.AddrFrom4([4]byte(d[8:12]))
	case unix.AF_INET6:
		a = netip.AddrFrom16([16]byte(d[8:24]))
	default:
		return netip.AddrPort{}, false
	}
	l := netip.AddrPortFrom(a, port)
	return l, port == ap.Port() && overlaps(ap.Addr(), a)
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
